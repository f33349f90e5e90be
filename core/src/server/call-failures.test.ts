/**
 * Each way an upstream `tools/call` fails, as a client of the `connector` server sees it:
 * real upstream servers (the stdio and Streamable HTTP fixtures, behind the daemon's own
 * upstream layer) and raw HTTP to the server on 127.0.0.1. A timeout, a JSON-RPC
 * rejection, a server that ended mid-call and a cancel each answer with their own code in
 * `data.code` and a message whose advice is one sentence naming an action that exists; a
 * tool's own failure (`isError`) stays a result.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STDIO_SERVER } from '@tutti/test-kit';
import { startHttpUpstream } from '@tutti/test-kit/http-upstream';
import type { UpstreamCallResult, UpstreamClient, UpstreamTool } from '../contracts/index.js';
import { openHttpUpstream } from '../upstream/index.js';
import { type ConnectorServer, createConnectorServer } from './connector-server.js';
import {
  createApp,
  createWorld,
  legacyHeaders,
  type World,
} from '@tutti/test-kit/core/server-world';
import { startStdioUpstream } from '@tutti/test-kit/core/stdio-upstream';

/** Call timeout of an upstream whose `sleep` must time out (the default is 600 s). */
const SHORT_CALL_TIMEOUT_MS = 300;

type Kind = 'stdio' | 'http';

/** A started fixture upstream behind the upstream layer, and how to stop it. */
interface Upstream extends UpstreamClient {
  readonly tools: readonly UpstreamTool[];
  close(): Promise<void>;
}

/** A JSON-RPC error answer. */
interface RpcFailure {
  readonly code: number;
  readonly message: string;
  readonly data: { code: string };
}

async function startUpstream(kind: Kind, callTimeoutMs?: number): Promise<Upstream> {
  const timeout = callTimeoutMs === undefined ? {} : { callTimeoutMs };
  if (kind === 'stdio') return startStdioUpstream({ args: [STDIO_SERVER], ...timeout });
  const server = (await startHttpUpstream()) as { url: string; close(): Promise<void> };
  const connection = await openHttpUpstream({
    url: server.url,
    startTimeoutMs: 10_000,
    ...timeout,
  }).catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  return {
    tools: connection.tools,
    callTool: (name, args, options) => connection.callTool(name, args, options),
    async close() {
      await connection.close();
      await server.close();
    },
  };
}

/** What the fixture's `cancelled_count` tool says, asked of the upstream directly. */
async function counts(upstream: Upstream): Promise<{ cancelled: number; sleeping: number }> {
  const result: UpstreamCallResult = await upstream.callTool('cancelled_count', {});
  return JSON.parse((result.content[0] as { text: string }).text);
}

/** Asks until `accept` holds for the upstream's counts; the test's own timeout bounds it. */
async function untilCounts(
  upstream: Upstream,
  accept: (seen: { cancelled: number; sleeping: number }) => boolean,
): Promise<void> {
  while (!accept(await counts(upstream))) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * Checks what every message of a failed call must be: no "..", and after the last ": "
 * one sentence of advice that names `action`.
 */
function expectOneAdvice(message: string, action: RegExp): void {
  expect(message).not.toContain('..');
  const advice = message.slice(message.lastIndexOf(': ') + 2);
  expect(advice).toMatch(action);
  expect(advice).toMatch(/\.$/);
  expect(advice.slice(0, -1)).not.toMatch(/[.!?]\s/);
}

describe('a client calling a tool whose upstream fails', () => {
  let world: World;
  let server: ConnectorServer;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeEach(async () => {
    world = createWorld();
    server = await createConnectorServer({
      registry: world.registry,
      tokens: world.tokens,
      keepAliveMs: 0,
    });
  });

  afterEach(async () => {
    await server.close();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  /** Starts an upstream and serves its tools as connector `up`. */
  async function serveUpstream(kind: Kind, callTimeoutMs?: number): Promise<Upstream> {
    const upstream = await startUpstream(kind, callTimeoutMs);
    cleanups.push(() => upstream.close());
    world.registry.commit('up', 1, upstream, upstream.tools);
    return upstream;
  }

  function post(body: unknown): Promise<Response> {
    return fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${world.token}`,
      },
      body: JSON.stringify(body),
    });
  }

  async function callTool(
    id: number,
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ result?: { isError?: boolean; content: unknown }; error?: RpcFailure }> {
    const response = await post({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { result?: { content: unknown }; error?: RpcFailure };
  }

  describe.each(['stdio', 'http'] as const)('over %s', (kind) => {
    it("gets a tool's own failure (isError) as a result, not an error", async () => {
      await serveUpstream(kind);
      const answer = await callTool(1, 'up_fail', { reason: 'rate limited' });
      expect(answer.error).toBeUndefined();
      // A modern (2026-07-28) upstream's result also carries its `_meta`, passed through.
      expect(answer.result).toMatchObject({
        content: [{ type: 'text', text: 'failed: rate limited' }],
        isError: true,
      });
    });

    it('gets TUTTI_ERR_UPSTREAM_CALL_REJECTED with the upstream JSON-RPC error it refused the call with', async () => {
      await serveUpstream(kind);
      const { error } = await callTool(2, 'up_fail', { rpcCode: -32602, reason: 'no issue 42' });
      expect(error?.code).toBe(-32603);
      expect(error?.data).toEqual({ code: 'TUTTI_ERR_UPSTREAM_CALL_REJECTED' });
      expect(error?.message).toMatch(
        /^Upstream MCP server "[^"]+" refused the call of tool "fail" with JSON-RPC error -32602 \(failed: no issue 42\): /,
      );
      expectOneAdvice(error!.message, /call the tool again/);
    });

    it('gets TUTTI_ERR_UPSTREAM_CALL_TIMEOUT when the upstream does not answer in time, and the upstream call is cancelled', async () => {
      const upstream = await serveUpstream(kind, SHORT_CALL_TIMEOUT_MS);
      const { error } = await callTool(3, 'up_sleep', { ms: 60_000 });
      expect(error?.code).toBe(-32603);
      expect(error?.data).toEqual({ code: 'TUTTI_ERR_UPSTREAM_CALL_TIMEOUT' });
      expect(error?.message).toMatch(
        new RegExp(
          `^The call of tool "sleep" on upstream MCP server "[^"]+" timed out after ${SHORT_CALL_TIMEOUT_MS} ms`,
        ),
      );
      expectOneAdvice(error!.message, /call the tool again/);
      await untilCounts(upstream, (seen) => seen.cancelled === 1);
    });

    it('gets -32800 and TUTTI_ERR_UPSTREAM_CANCELLED for a call it cancelled, and the upstream call is cancelled', async () => {
      const upstream = await serveUpstream(kind);
      const answer = post({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'up_sleep', arguments: { ms: 60_000 } },
      });
      await untilCounts(upstream, (seen) => seen.sleeping === 1);
      const cancel = await post({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 4 },
      });
      expect(cancel.status).toBe(202);
      const { error } = (await (await answer).json()) as { error: RpcFailure };
      expect(error.code).toBe(-32800);
      expect(error.data).toEqual({ code: 'TUTTI_ERR_UPSTREAM_CANCELLED' });
      expect(error.message).toMatch(
        /^The call of tool "sleep" on upstream MCP server "[^"]+" was cancelled by its caller: /,
      );
      expectOneAdvice(error.message, /call the tool again/);
      await untilCounts(upstream, (seen) => seen.cancelled === 1);
    });
  });

  it('gets TUTTI_ERR_UPSTREAM_EXITED, with the exit code, for each call in flight when a stdio server dies', async () => {
    const upstream = await serveUpstream('stdio');
    const sleeping = callTool(5, 'up_sleep', { ms: 60_000 });
    await untilCounts(upstream, (seen) => seen.sleeping === 1);
    const crash = await callTool(6, 'up_crash', { code: 7 });
    for (const { error } of [crash, await sleeping]) {
      expect(error?.code).toBe(-32603);
      expect(error?.data).toEqual({ code: 'TUTTI_ERR_UPSTREAM_EXITED' });
      expect(error?.message).toMatch(
        /^Upstream MCP server "node" ended \(exit code 7\) before it answered: /,
      );
      expectOneAdvice(error!.message, /call the tool again.*\(tutti connector available /);
    }
  });

  it('gives an SDK v2 client the code of a rejected call in the error data', async () => {
    await serveUpstream('stdio');
    const client = new Client({ name: 'v2', version: '1.0.0' });
    cleanups.push(() => client.close());
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${world.token}` } },
      }),
    );
    const error = (await client
      .callTool({ name: 'up_fail', arguments: { rpcCode: -32001, reason: 'quota' } })
      .catch((caught: unknown) => caught)) as { code?: number; data?: unknown; message?: string };
    expect(error.code).toBe(-32603);
    expect(error.data).toEqual({ code: 'TUTTI_ERR_UPSTREAM_CALL_REJECTED' });
    expect(error.message).toContain('JSON-RPC error -32001 (failed: quota)');
  });
});

describe('a call stopped by the server closing', () => {
  it('answers -32603 and TUTTI_ERR_SERVER_SHUTTING_DOWN, not a cancel the client never sent', async () => {
    const world = createWorld();
    const app = createApp(world);
    try {
      const answer = app.app.inject({
        method: 'POST',
        url: '/mcp/connector',
        headers: legacyHeaders(world.token),
        payload: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'gh_slow' } },
      });
      await world.gh.called('slow');
      app.shutdown();
      const { error } = (await answer).json() as { error: RpcFailure };
      expect(error).toEqual({
        code: -32603,
        message:
          'The connector server is shutting down with its daemon, so the call of tool "slow" was stopped: call the tool again once tuttid runs again.',
        data: { code: 'TUTTI_ERR_SERVER_SHUTTING_DOWN' },
      });
    } finally {
      await app.app.close();
    }
  });
});
