/**
 * Remote Streamable HTTP connectors end to end in an in-process daemon, against real
 * servers on loopback: the SDK v2 fixture (2026-07-28, stateless; or the 2025 stateless
 * legacy handler) and `@modelcontextprotocol/server-everything` in its streamableHttp mode
 * (2025-06-18 with Mcp-Session-Id). Tools are listed and called through the daemon's own
 * `connector` server with a session token, as an agent would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectorStatus } from '@tutti/core/internal';
import { cleanUp, tempDir, UPSTREAM_FIXTURES } from '@tutti/test-kit';
import { freePort } from '@tutti/test-kit/free-port';
import { startHttpUpstream } from '@tutti/test-kit/http-upstream';
import {
  closeDaemons,
  startTestDaemon,
  type TestDaemon,
} from '@tutti/test-kit/reliability/in-process-daemon';

interface HttpFixture {
  url: string;
  port: number;
  requests: { httpMethod: string; protocolVersion?: string; authorization?: string }[];
  addTool(name: string): void;
  notifyUnchanged(): void;
  setToken(token: string): void;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const LOOPBACK = join(UPSTREAM_FIXTURES, 'loopback-everything.mjs');

const fixtures: HttpFixture[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  await closeDaemons();
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close().catch(() => undefined)));
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  await cleanUp();
});

async function fixture(options: Record<string, unknown>): Promise<HttpFixture> {
  const started = (await startHttpUpstream(options)) as HttpFixture;
  fixtures.push(started);
  return started;
}

/** Writes a remote connector release and returns its folder. */
async function remoteRelease(key: string, mcp: object, auth: object): Promise<string> {
  const dir = join(await tempDir('tutti-remote-'), key);
  await mkdir(dir, { recursive: true });
  const manifest = {
    key,
    name: `Remote ${key}`,
    description: 'A remote connector.',
    version: '1.0.0',
    mcp,
    auth,
  };
  await writeFile(join(dir, 'tutti-connector.json'), JSON.stringify(manifest));
  return dir;
}

async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** An agent's view: JSON-RPC through the daemon's `connector` server with a session token. */
function agent(test: TestDaemon, token: string) {
  let id = 0;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers checked by each test
  const rpc = async (method: string, params: object = {}): Promise<any> => {
    const response = await fetch(test.daemon.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    return response.json();
  };
  return {
    async toolNames(): Promise<string[]> {
      const answer = await rpc('tools/list');
      return (answer.result.tools as { name: string }[]).map((tool) => tool.name).sort();
    },
    async call(name: string, args: object): Promise<string> {
      const answer = await rpc('tools/call', { name, arguments: args });
      if (answer.error) return `error: ${answer.error.message}`;
      return (answer.result.content[0] as { text: string }).text;
    },
  };
}

function statusOf(test: TestDaemon, key: string): ConnectorStatus | undefined {
  return test.daemon.runtime.status().find((status) => status.key === key);
}

/** Resolves once `key` serves at a generation above `after`. */
function servingAbove(test: TestDaemon, key: string, after: number): Promise<ConnectorStatus> {
  return waitFor(() => {
    const status = statusOf(test, key);
    return status?.state === 'ready' && (status.generation ?? 0) > after ? status : undefined;
  }, `${key} serving above generation ${after}`);
}

async function installRemote(
  test: TestDaemon,
  key: string,
  mcp: object,
  auth: object,
  secret: string,
) {
  const path = await remoteRelease(key, mcp, auth);
  const installed = await test.control('POST', '/v1/connectors/install', { path });
  expect(installed.status).toBe(200);
  const credential = await test.control('PUT', `/v1/connectors/${key}/credentials`, { secret });
  expect(credential.body.authReady).toBe(true);
  return servingAbove(test, key, 0);
}

const BEARER = { kind: 'api_key', header: 'Authorization', prefix: 'Bearer ' };

describe('remote connectors in the daemon: the 2026-07-28 era', () => {
  it('installs with a header credential, serves and calls its tools through the connector server', async () => {
    const remote = await fixture({ era: 'both', token: 'remote-key-1' });
    const test = await startTestDaemon({ backoff: { initialMs: 20, maxMs: 100 } });
    await installRemote(test, 'far', { url: remote.url }, BEARER, 'remote-key-1');
    const client = agent(test, await test.sessionToken('remote-agent'));
    expect(await client.toolNames()).toContain('far_echo');
    expect(JSON.parse(await client.call('far_echo', { hello: 'remote' }))).toEqual({
      hello: 'remote',
    });
    const sent = remote.requests.filter((request) => request.httpMethod === 'POST');
    expect(sent.every((request) => request.authorization === 'Bearer remote-key-1')).toBe(true);
    expect(sent.some((request) => request.protocolVersion === '2026-07-28')).toBe(true);
    expect(test.logLines.join('\n')).not.toContain('remote-key-1');
  });

  it('commits a new generation on list_changed only when the list really changed', async () => {
    const remote = await fixture({ era: 'both', token: 'k' });
    const test = await startTestDaemon();
    const first = await installRemote(test, 'grow', { url: remote.url }, BEARER, 'k');
    const client = agent(test, await test.sessionToken('grow-agent'));
    remote.addTool('fresh');
    await servingAbove(test, 'grow', first.generation!);
    expect(await client.toolNames()).toContain('grow_fresh');
    const listsBefore = remote.requests.filter((r) => r.httpMethod === 'POST').length;
    remote.notifyUnchanged();
    // The daemon re-lists (the fixture sees it), then keeps the generation it had.
    await waitFor(
      () =>
        remote.requests.filter((r) => r.httpMethod === 'POST').length > listsBefore
          ? true
          : undefined,
      'the re-list',
    );
    // A real change after it: by the time it shows, the unchanged list was handled.
    remote.addTool('second');
    await waitFor(
      async () => ((await client.toolNames()).includes('grow_second') ? true : undefined),
      'the second tool',
    );
    const changes = test.daemon.runtime
      .events()
      .filter((e) => e.key === 'grow' && e.kind === 'tools-changed');
    expect(changes.map((e) => e.detail)).toEqual(['13 tools', '14 tools']);
    expect(statusOf(test, 'grow')?.generation).toBe(changes[1]!.generation);
  });

  it('reconnects and routes back after the remote server restarts', async () => {
    const remote = await fixture({ era: 'both', token: 'k' });
    const test = await startTestDaemon({ backoff: { initialMs: 20, maxMs: 100 } });
    const first = await installRemote(test, 'bounce', { url: remote.url }, BEARER, 'k');
    const client = agent(test, await test.sessionToken('bounce-agent'));
    await remote.close();
    fixtures.splice(fixtures.indexOf(remote), 1);
    await waitFor(
      () => (statusOf(test, 'bounce')?.state !== 'ready' ? true : undefined),
      'the route to go',
    );
    expect(await client.toolNames()).not.toContain('bounce_echo');
    await fixture({ era: 'both', token: 'k', port: remote.port });
    await servingAbove(test, 'bounce', first.generation!);
    expect(JSON.parse(await client.call('bounce_echo', { back: true }))).toEqual({ back: true });
  });

  it('removes the route when the remote server answers 401, and says why', async () => {
    const remote = await fixture({ era: 'both', token: 'old-key' });
    const test = await startTestDaemon({ backoff: { initialMs: 20, maxMs: 100 } });
    const first = await installRemote(test, 'locked', { url: remote.url }, BEARER, 'old-key');
    const client = agent(test, await test.sessionToken('locked-agent'));
    remote.setToken('rotated-key');
    const refused = await client.call('locked_echo', { x: 1 });
    expect(refused).toMatch(/^error: /);
    const lost = await waitFor(() => {
      const status = statusOf(test, 'locked');
      return status?.state === 'failed' ? status : undefined;
    }, 'the connector to fail');
    expect(lost.lastError).toMatch(/401/);
    expect(lost.lastError).toMatch(/credential/);
    expect(await client.toolNames()).not.toContain('locked_echo');
    expect(JSON.stringify(lost)).not.toContain('old-key');
    // A new credential brings it back at once.
    await test.control('PUT', '/v1/connectors/locked/credentials', { secret: 'rotated-key' });
    await servingAbove(test, 'locked', first.generation!);
    expect(JSON.parse(await client.call('locked_echo', { y: 2 }))).toEqual({ y: 2 });
  });
});

describe('remote connectors in the daemon: the 2025 eras', () => {
  it('serves a stateless 2025 server through the connector server', async () => {
    const remote = await fixture({ era: 'legacy', token: 'k' });
    const test = await startTestDaemon();
    await installRemote(test, 'old', { url: remote.url }, BEARER, 'k');
    const client = agent(test, await test.sessionToken('old-agent'));
    expect(JSON.parse(await client.call('old_echo', { era: 2025 }))).toEqual({ era: 2025 });
    // Negotiation probes 2026-07-28 once; everything after it speaks the newest 2025
    // revision both know.
    expect(remote.requests.at(-1)?.protocolVersion).toBe('2025-11-25');
  });

  it('serves server-everything (2025-06-18 with Mcp-Session-Id) and follows its restart', async () => {
    const port = await freePort();
    const key = 'everything-key-77';
    let server = await startEverything(port, key);
    const test = await startTestDaemon({ backoff: { initialMs: 20, maxMs: 100 } });
    const first = await installRemote(
      test,
      'every',
      { url: `http://127.0.0.1:${port}/mcp`, protocol: '2025-06-18' },
      { kind: 'api_key', header: 'X-Api-Key' },
      key,
    );
    const client = agent(test, await test.sessionToken('every-agent'));
    expect(await client.toolNames()).toContain('every_echo');
    expect(await client.call('every_echo', { message: 'hi' })).toContain('hi');
    const stats = await everythingStats(port);
    expect(stats.withSession).toBeGreaterThan(0);
    // The server restarts: its sessions are gone; the daemon opens a new one.
    server.kill('SIGKILL');
    await new Promise((resolve) => server.once('exit', resolve));
    server = await startEverything(port, key);
    // The first call after it meets the unknown session; the daemon connects again.
    await client.call('every_echo', { message: 'meets the old session' });
    const back = await servingAbove(test, 'every', first.generation!);
    expect(await client.call('every_echo', { message: 'again' })).toContain('again');
    const events = test.daemon.runtime.events().filter((e) => e.key === 'every');
    expect(events.map((e) => e.kind)).toEqual(['started', 'crashed', 'restarted']);
    expect(events[1]?.detail).toMatch(/no longer knows the session/);
    expect(back.restarts).toBe(1);
    const restartedStats = await everythingStats(port);
    expect(restartedStats.withSession).toBeGreaterThan(0);
  });
});

/** Requests server-everything got, and how many carried an Mcp-Session-Id. */
async function everythingStats(port: number): Promise<{ requests: number; withSession: number }> {
  const response = await fetch(`http://127.0.0.1:${port}/__tutti/stats`);
  return (await response.json()) as { requests: number; withSession: number };
}

/** Starts server-everything on loopback `port`, requiring `X-Api-Key: key`. */
async function startEverything(port: number, key: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', LOOPBACK, EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), TUTTI_EVERYTHING_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('listening on port')) resolve();
    });
    child.stdout!.resume();
    child.once('exit', (code) => reject(new Error(`server-everything exited ${code}: ${err}`)));
  });
  return child;
}
