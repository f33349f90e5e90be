/**
 * Cancellation and upstream failure over real sockets: a closed response, a
 * `notifications/cancelled`, an SDK client's abort and server shutdown all fire the
 * upstream call's signal; a stdio upstream that dies mid-call becomes a JSON-RPC error.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallSignal } from '../contracts/index.js';
import { type ConnectorServer, createConnectorServer } from './connector-server.js';
import { startStdioUpstream, type StdioUpstream } from '@tutti/test-kit/core/stdio-upstream';
import { createWorld, ENVELOPE, type World } from '@tutti/test-kit/core/server-world';

function aborted(signal: CallSignal): Promise<unknown> {
  return signal.aborted
    ? Promise.resolve(signal.reason)
    : new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve(signal.reason), { once: true }),
      );
}

describe('cancellation and upstream failure', () => {
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
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    await server.close();
  });

  function post(
    body: unknown,
    options: { token?: string; signal?: AbortSignal; headers?: Record<string, string> } = {},
  ) {
    return fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${options.token ?? world.token}`,
        ...options.headers,
      },
      body: JSON.stringify(body),
      signal: options.signal,
    });
  }

  const slowCall = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'gh_slow', arguments: {} },
  });

  it('aborts the upstream call when the client closes the connection', async () => {
    const client = new AbortController();
    const response = post(slowCall(1), { signal: client.signal });
    const call = await world.gh.called('slow');
    client.abort();
    await expect(response).rejects.toThrow();
    expect(await aborted(call.signal)).toBe('disconnected');
  });

  it('cancels the call named by notifications/cancelled and answers it with -32800', async () => {
    const response = post(slowCall(5));
    const call = await world.gh.called('slow');
    const cancel = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 5 },
    });
    expect(cancel.status).toBe(202);
    expect(await aborted(call.signal)).toBe('cancelled');
    const answer = (await (await response).json()) as { error: { code: number } };
    expect(answer.error.code).toBe(-32800);
  });

  it('ignores notifications/cancelled from another session for the same request id', async () => {
    const other = world.tokens.issue('ws-1', 'sess-2');
    const response = post(slowCall(5));
    const call = await world.gh.called('slow');
    const foreign = await post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } },
      { token: other },
    );
    expect(foreign.status).toBe(202);
    expect(call.signal.aborted).toBe(false);
    await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    expect(await aborted(call.signal)).toBe('cancelled');
    await response;
  });

  it('aborts the upstream call when an SDK v2 client on 2026-07-28 aborts its request', async () => {
    const client = new Client(
      { name: 'v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    cleanups.push(() => client.close());
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${world.token}` } },
      }),
    );
    const stop = new AbortController();
    const result = client.callTool({ name: 'gh_slow', arguments: {} }, { signal: stop.signal });
    const call = await world.gh.called('slow');
    stop.abort();
    await expect(result).rejects.toThrow();
    expect(['disconnected', 'cancelled']).toContain(await aborted(call.signal));
  });

  it('cancels by a 2026-07-28 notifications/cancelled carrying the envelope', async () => {
    const modern = {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'gh_slow',
    };
    const response = post(
      { ...slowCall(8), params: { name: 'gh_slow', arguments: {}, _meta: ENVELOPE } },
      { headers: modern },
    );
    const call = await world.gh.called('slow');
    const cancel = await post(
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 8, _meta: ENVELOPE },
      },
      { headers: { 'mcp-protocol-version': '2026-07-28' } },
    );
    expect(cancel.status).toBe(202);
    expect(await aborted(call.signal)).toBe('cancelled');
    await response;
  });

  it('aborts in-flight calls when the server closes', async () => {
    const response = post(slowCall(2)).catch((error: unknown) => error);
    const call = await world.gh.called('slow');
    await server.close();
    expect(await aborted(call.signal)).toBe('shutdown');
    await response;
  });

  it('answers a JSON-RPC error when a stdio upstream dies mid-call', async () => {
    const upstream: StdioUpstream = await startStdioUpstream();
    cleanups.push(() => upstream.close());
    world.registry.commit('dying', 1, upstream, upstream.tools);
    const ok = (await (
      await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'dying_echo', arguments: {} },
      })
    ).json()) as { result: { content: unknown } };
    expect(ok.result.content).toEqual([{ type: 'text', text: 'pong' }]);
    const res = await post({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'dying_die', arguments: {} },
    });
    expect(res.status).toBe(200);
    const { error } = (await res.json()) as {
      error: { code: number; message: string; data: unknown };
    };
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(
      /^Upstream MCP server "node" ended \(exit code 3\) before it answered: call the tool again/,
    );
    expect(error.data).toEqual({ code: 'TUTTI_ERR_UPSTREAM_EXITED' });
  });
});
