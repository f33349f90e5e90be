/**
 * The upstream's own words reach the user, with a real `tuttid` and real upstreams: an MCP
 * server that explains its failure on stderr has those lines, its credential masked and
 * bounded, in its state in `GET /v1/connectors` and `/debug/registry`, and nowhere an
 * agent or a host's event stream sees; a server that refuses `initialize` is reported as
 * refusing it, one that writes a line over the bound of one message as doing that; and
 * every log line about a connector carries its key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp, FIXTURES } from '@tutti/test-kit';
import { type EventReader, openEvents } from '@tutti/test-kit/event-stream';
import { startTuttid, stopAll, type TuttidProcess, waitForConnector } from '@tutti/test-kit/tuttid';

const EXPLAINING = `${FIXTURES}upstream/explaining-server.mjs`;
const HUGE_LINE = `${FIXTURES}upstream/huge-line-server.mjs`;
const SECRET = 'sk-live-9f8e7d6c5b4a3f2e1d';

let home: string;
let daemon: TuttidProcess;
let events: EventReader;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tuttid-stderr-'));
  daemon = await startTuttid(home, ['--no-demo']);
  events = await openEvents(daemon);
  const install = (spec: Parameters<typeof writeRelease>[0]) =>
    writeRelease(spec).then((path) => daemon.control('POST', '/v1/connectors/install', { path }));
  await install({
    key: 'explain',
    serverArgs: ['exit'],
    script: EXPLAINING,
    apiKeyEnv: 'EXPLAIN_KEY',
  });
  await daemon.control('PUT', '/v1/connectors/explain/credentials', { secret: SECRET });
  await install({ key: 'refuse', serverArgs: ['refuse'], script: EXPLAINING });
  await install({ key: 'flood', serverArgs: ['flood'], script: EXPLAINING });
  await install({ key: 'fine', serverArgs: [] });
}, 120_000);

afterAll(async () => {
  events?.close();
  await stopAll();
  await cleanUp();
  await rm(home, { recursive: true, force: true });
});

/** The runtime status of `key` once it failed at least once. */
async function failed(key: string) {
  return (await waitForConnector(daemon, key, ['failed'])).runtime;
}

describe("an upstream's stderr", () => {
  it('is in the connector state, with its credential masked', async () => {
    const runtime = await failed('explain');
    expect(runtime.lastError).toContain('exit code 2');
    expect(runtime.stderr).toEqual([
      'starting the database client',
      '401 invalid API key [redacted]',
      'Error: DATABASE_URL is not set',
    ]);
    const { body } = await daemon.control('GET', '/debug/registry');
    const debug = body.connectors.find((c: { key: string }) => c.key === 'explain');
    expect(debug.stderr).toContain('Error: DATABASE_URL is not set');
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });

  it('is bounded: the last 20 lines of a server that floods stderr', async () => {
    const runtime = await failed('flood');
    expect(runtime.stderr).toHaveLength(20);
    expect(runtime.stderr.at(-1)).toMatch(/^flood line 5000 x+$/);
  });

  it('is never in connector available, the agent guidance, events or the daemon log', async () => {
    await failed('explain');
    await failed('refuse');
    const available = JSON.stringify(
      (await daemon.control('GET', '/v1/connectors/available')).body,
    );
    const session = await daemon.control('POST', '/v1/sessions', {
      workspaceId: 'ws',
      cwd: tmpdir(),
    });
    const seen = [
      available,
      JSON.stringify(session.body),
      JSON.stringify(events.events),
      daemon.stdout(),
    ];
    for (const text of seen) {
      expect(text).not.toContain('DATABASE_URL');
      expect(text).not.toContain('no database configured');
      expect(text).not.toContain(SECRET);
    }
    expect(daemon.stderr()).not.toContain('DATABASE_URL');
    expect(daemon.stderr()).not.toContain(SECRET);
  });
});

describe('a start that fails in the protocol', () => {
  it('is reported as what it was, not as the signal that stopped the server', async () => {
    const runtime = await failed('refuse');
    expect(runtime.lastError).toContain('initialize refused: no database configured');
    expect(runtime.lastError).not.toMatch(/SIGTERM|SIGKILL/);
    expect(runtime.stderr).toEqual(['refusing to initialize: no database configured']);
  });

  it('names the bound of one message when a tools/list answer is one line over it', async () => {
    const path = await writeRelease({ key: 'huge', serverArgs: [], script: HUGE_LINE });
    expect((await daemon.control('POST', '/v1/connectors/install', { path })).status).toBe(200);
    try {
      const runtime = await failed('huge');
      expect(runtime.lastError).toContain('wrote a line of more than 10485760 bytes (10 MiB)');
      expect(runtime.lastError).not.toMatch(/SIGTERM|SIGKILL/);
    } finally {
      await daemon.control('DELETE', '/v1/connectors/huge');
    }
  });
});

describe('the daemon log', () => {
  it('names the connector on every line about one', async () => {
    await waitForConnector(daemon, 'fine');
    const { body } = await daemon.control('POST', '/v1/sessions', {
      workspaceId: 'ws',
      cwd: tmpdir(),
    });
    const [binding] = body.runtime.mcpServers;
    await fetch(binding.url, {
      method: 'POST',
      headers: {
        ...binding.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'fine_crash', arguments: {} },
      }),
    });
    await events.waitFor((e) => e.type === 'connector.restarted' && e.key === 'fine');
    const lines = daemon
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; connector?: string; target?: string });
    const about = lines.filter(
      (line) => /^(upstream|connector) /.test(line.msg ?? '') || line.target,
    );
    expect(about.some((line) => line.msg === 'upstream ended')).toBe(true);
    expect(about.filter((line) => line.connector === undefined)).toEqual([]);
  });
});
