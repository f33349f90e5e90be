/**
 * A connector that does not work says why, where people look, with a real `tuttid` and
 * the real `tutti` bin: `connector available` (human and `--json`) lists every installed
 * connector with each interface's status and its fixed advice (a working CLI beside a
 * failed MCP server included), the install answer of a connector that needs a key says
 * so, and agents are told about the ready interfaces only.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERFACE_ADVICE } from '@tutti/core/client';
import { SILENT_SERVER, writeRelease, cleanUp } from '@tutti/test-kit';
import { openStore } from '@tutti/core/internal';
import { startTuttid, stopAll, type TuttidProcess, waitForConnector } from '@tutti/test-kit/tuttid';

const TUTTI = fileURLToPath(new URL('../../cli/bin/tutti.js', import.meta.url));
const SKILL = '---\nname: half-usage\ndescription: How to use half.\n---\n# Half usage\n';

let home: string;
let daemon: TuttidProcess;
let keyedInstall: { status: number; body: { runtime: Record<string, unknown> } };

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tuttid-statuses-'));
  const store = await openStore(home);
  await store.install(await writeRelease({ key: 'fine', serverArgs: [] }));
  await store.install(
    await writeRelease({
      key: 'half',
      serverArgs: [],
      command: '/nonexistent/tutti-mcp',
      cli: 'console.log("half cli works");\n',
      skills: { 'half-usage': SKILL },
    }),
  );
  await store.install(
    await writeRelease({
      key: 'hung',
      serverArgs: [],
      script: SILENT_SERVER,
      startTimeoutMs: 600_000,
    }),
  );
  daemon = await startTuttid(home, ['--no-demo'], { until: 'ready' });
  await waitForConnector(daemon, 'fine');
  await waitForConnector(daemon, 'half', ['failed']);
  keyedInstall = await daemon.control('POST', '/v1/connectors/install', {
    path: await writeRelease({
      key: 'keyed',
      serverArgs: [],
      apiKeyEnv: 'KEYED_TOKEN',
      cli: 'console.log(process.env.KEYED_TOKEN);\n',
    }),
  });
}, 120_000);

afterAll(async () => {
  await stopAll();
  await cleanUp();
  await rm(home, { recursive: true, force: true });
});

/** The status and advice of each interface of each connector, by key. */
function statusesOf(connectors: { key: string; interfaces: Record<string, string>[] }[]) {
  return Object.fromEntries(
    connectors.map((c) => [
      c.key,
      c.interfaces.map(({ kind, status, advice }) => ({ kind, status, advice })),
    ]),
  );
}

const ready = (kind: string) => ({ kind, status: 'ready', advice: undefined });
const advised = (kind: string, status: keyof typeof INTERFACE_ADVICE) => ({
  kind,
  status,
  advice: INTERFACE_ADVICE[status],
});

describe('connector statuses', () => {
  it('answers the install of a connector that needs a key with its state and what to do', () => {
    expect(keyedInstall.status).toBe(200);
    expect(keyedInstall.body.runtime).toMatchObject({
      key: 'keyed',
      state: 'needs-auth',
      mcp: 'needs-auth',
      cli: 'needs-auth',
      advice: INTERFACE_ADVICE['needs-auth'],
    });
  });

  it('lists every installed connector with each interface status and its fixed advice', async () => {
    const { body } = await daemon.control('GET', '/v1/connectors/available');
    expect(body.connectors.map((c: { key: string }) => c.key)).toEqual([
      'fine',
      'half',
      'hung',
      'keyed',
    ]);
    const statuses = statusesOf(body.connectors);
    expect(statuses.fine).toEqual([ready('mcp')]);
    expect(statuses.hung).toEqual([advised('mcp', 'starting')]);
    expect(statuses.keyed).toEqual([advised('mcp', 'needs-auth'), advised('cli', 'needs-auth')]);
    // Its MCP server keeps failing (and is retried); its CLI works all along.
    expect(statuses.half![1]).toEqual(ready('cli'));
    expect(['failed', 'starting']).toContain(statuses.half![0]!.status);
    expect(statuses.half![0]!.advice).toBe(
      INTERFACE_ADVICE[statuses.half![0]!.status as 'failed' | 'starting'],
    );
    const half = body.connectors.find((c: { key: string }) => c.key === 'half');
    expect(half.skills).toEqual([
      { name: 'half-usage', title: 'Half usage', description: 'How to use half.' },
    ]);
    // The reason stays in GET /v1/connectors, never in this list.
    const text = JSON.stringify(body);
    expect(text).not.toContain('nonexistent');
    expect(text).not.toContain('TUTTI_ERR');
    expect(text).not.toContain(home);
  });

  it('gives `tutti connector available` the same list, in JSON and as a table with the advice', async () => {
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, [
        TUTTI,
        'connector',
        'available',
        '--home',
        home,
        ...args,
      ]);
    const json = JSON.parse((await run(['--json'])).stdout);
    expect(statusesOf(json.connectors).keyed).toEqual([
      advised('mcp', 'needs-auth'),
      advised('cli', 'needs-auth'),
    ]);
    expect(json.connectors.map((c: { key: string }) => c.key)).toEqual([
      'fine',
      'half',
      'hung',
      'keyed',
    ]);
    const table = (await run([])).stdout;
    expect(table).toMatch(
      /^Connector keyed \(keyed\)\s+MCP tools keyed_\*, CLI\s+mcp needs-auth, cli needs-auth\s+tutti-connector-keyed/m,
    );
    expect(table).toMatch(/^Connector hung \(hung\)\s+MCP tools hung_\*\s+mcp starting/m);
    expect(table).toMatch(
      /^Connector half \(half\)\s+MCP tools half_\*, CLI, Skills\s+mcp \S+, cli ready\s+tutti-connector-half\s+half-usage$/m,
    );
    expect(table).toContain(`  mcp starting: ${INTERFACE_ADVICE.starting}`);
    expect(table).toContain(
      '  cli needs-auth: It needs a credential or a sign-in: in the dashboard (`tuttid dashboard` prints a login link) use its Sign in button',
    );
  });

  it('tells agents about the ready interfaces only, and hands them the skills of a working CLI', async () => {
    const { body } = await daemon.control('POST', '/v1/sessions', {
      workspaceId: 'ws',
      cwd: tmpdir(),
    });
    const guidance: string = body.runtime.guidance;
    expect(guidance).toContain('start with `fine_`');
    expect(guidance).toContain('run `tutti-connector-half` in the shell');
    expect(guidance).toContain('Skill `half-usage`');
    expect(guidance).not.toContain('half_');
    expect(guidance).not.toContain('hung');
    expect(guidance).not.toContain('keyed');
    expect(guidance).toContain('Only the interfaces that are ready now are listed');
    expect(body.runtime.skillRoots).toHaveLength(1);
    expect(body.runtime.skillRoots[0]).toMatch(/skills$/);
  });
});
