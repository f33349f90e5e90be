/**
 * The caps a user can rely on, against a real `tuttid` started with each cap lowered by its
 * flag: bodies of the MCP server and of the control API, listen streams per token, live
 * agent sessions, and the argument depth (a caller's error that never reaches or blames the connector). Both
 * listeners are bound to 127.0.0.1 only, as the kernel's socket table shows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp } from '@tutti/test-kit';
import { listeningAddresses } from '@tutti/test-kit/listening-addresses';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';

let home: string;
let daemon: TuttidProcess;
let token: string;

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'limits-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test's assertions
type Json = any;

/** POSTs `body` to the MCP endpoint with the session's token. */
async function mcp(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(daemon.ready.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body,
  });
  return response;
}

/** The JSON body of an answer. */
function json(response: Response): Promise<Json> {
  return response.json() as Promise<Json>;
}

function listen(id: number) {
  return mcp(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE },
    }),
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
  );
}

/** The value of the metric line `name{connector="k"}`, 0 when absent. */
async function metric(name: string): Promise<number> {
  const { body } = await daemon.control('GET', '/metrics');
  const line = String(body)
    .split('\n')
    .find((entry) => entry.startsWith(`${name}{connector="k"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tuttid-limits-'));
  daemon = await startTuttid(home, [
    '--no-demo',
    '--mcp-body-limit',
    '4096',
    '--control-body-limit',
    '2048',
    '--max-listen-streams',
    '2',
    '--max-argument-depth',
    '8',
    '--max-sessions',
    '2',
  ]);
  const release = await writeRelease({ key: 'k', serverArgs: [] });
  expect((await daemon.control('POST', '/v1/connectors/install', { path: release })).status).toBe(
    200,
  );
  const { body } = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    agentSessionId: 'limits',
    cwd: tmpdir(),
  });
  token = body.runtime.mcpServers[0].headers.Authorization.slice('Bearer '.length);
});

afterAll(async () => {
  await stopAll();
  await cleanUp();
  await rm(home, { recursive: true, force: true });
});

describe('tuttid limits', () => {
  it('refuses arguments nested deeper than the limit itself, counting nothing against the connector', async () => {
    const call = (args: string) =>
      mcp(
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"k_echo","arguments":${args}}}`,
      );
    const callsBefore = await metric('tutti_connector_tool_calls_total');
    const errorsBefore = await metric('tutti_connector_tool_call_errors_total');
    // 2,000 levels, sent as text: the body stays under the 4 KiB limit of this daemon.
    const deep = `${'['.repeat(1_999)}1${']'.repeat(1_999)}`;
    const refused = await mcp(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"k_echo","arguments":{"a":${deep}}}}`,
    );
    expect(refused.status).toBe(200);
    const answer = await json(refused);
    expect(answer.error).toMatchObject({
      code: -32602,
      data: { code: 'TUTTI_ERR_SERVER_ARGUMENTS_TOO_DEEP' },
    });
    expect(answer.error.message).toContain('deeper than 8 levels');
    expect(await metric('tutti_connector_tool_calls_total')).toBe(callsBefore);
    expect(await metric('tutti_connector_tool_call_errors_total')).toBe(errorsBefore);
    // At the limit, the call reaches the connector and is counted once.
    const atLimit = await call(`${'{"a":'.repeat(7)}1${'}'.repeat(7)}`);
    expect((await json(atLimit)).result).toBeDefined();
    expect(await metric('tutti_connector_tool_calls_total')).toBe(callsBefore + 1);
    expect(await metric('tutti_connector_tool_call_errors_total')).toBe(errorsBefore);
  });

  it('refuses an MCP body over --mcp-body-limit with 413 and keeps serving', async () => {
    const big = await mcp(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'k_echo', arguments: { text: 'x'.repeat(5_000) } },
      }),
    );
    expect(big.status).toBe(413);
    expect((await json(big)).error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('larger than 4096 bytes'),
      data: { code: 'TUTTI_ERR_SERVER_BODY_TOO_LARGE' },
    });
    const small = await mcp('{"jsonrpc":"2.0","id":3,"method":"ping"}');
    expect(await json(small)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('refuses a control API body over --control-body-limit with 413', async () => {
    const { status, body } = await daemon.control('POST', '/v1/connectors/install', {
      path: `/${'p'.repeat(3_000)}`,
    });
    expect(status).toBe(413);
    expect(body).toEqual({
      error: {
        code: 'TUTTI_ERR_CONTROL_BODY_TOO_LARGE',
        message:
          'The control API request body is larger than 2048 bytes: send a smaller request, or start tuttid with a larger --control-body-limit.',
      },
    });
    expect((await daemon.control('GET', '/v1/connectors')).status).toBe(200);
  });

  it('holds a token to --max-listen-streams open streams', async () => {
    const open = [await listen(10), await listen(11)];
    expect(open.map((response) => response.status)).toEqual([200, 200]);
    const third = await listen(12);
    expect(third.status).toBe(429);
    expect((await json(third)).error.data.code).toBe('TUTTI_ERR_SERVER_TOO_MANY_STREAMS');
    for (const response of open) await response.body?.cancel();
  });

  it('holds the daemon to --max-sessions live sessions, and takes a new one once one is closed', async () => {
    const open = (id: string) =>
      daemon.control('POST', '/v1/sessions', {
        workspaceId: 'ws',
        agentSessionId: id,
        cwd: tmpdir(),
      });
    expect((await open('second')).status).toBe(200);
    const third = await open('third');
    expect(third.status).toBe(429);
    expect(third.body.error).toEqual({
      code: 'TUTTI_ERR_SESSION_LIMIT',
      message:
        'The daemon already holds 2 live agent sessions: close one (DELETE /v1/sessions/<id>), or start tuttid with a larger --max-sessions.',
    });
    expect((await daemon.control('DELETE', '/v1/sessions/second')).status).toBe(200);
    expect((await open('third')).status).toBe(200);
  });

  it('listens on 127.0.0.1 only, for the MCP server and the control API', () => {
    for (const url of [daemon.ready.mcpUrl, daemon.ready.controlUrl]) {
      const { hostname, port } = new URL(url);
      expect(hostname).toBe('127.0.0.1');
      if (process.platform === 'linux') {
        expect(listeningAddresses(Number(port))).toEqual(['127.0.0.1']);
      }
    }
  });

  it('refuses a limit flag that is not a whole number from 1 up', async () => {
    const other = await mkdtemp(join(tmpdir(), 'tuttid-limits-bad-'));
    try {
      const failed = await startTuttid(other, ['--no-demo', '--max-listen-streams', '0']).catch(
        (error: Error) => error,
      );
      expect(String(failed)).toContain(
        'TUTTI_ERR_DAEMON_BAD_ARGUMENT: tuttid: --max-listen-streams takes a whole number from 1 up',
      );
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
