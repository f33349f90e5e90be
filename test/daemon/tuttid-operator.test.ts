/**
 * `tuttid status` and `tuttid dashboard` as a person runs them (the built bin, a real
 * daemon): each connector with its status, and a failing one with its reason and its
 * server's stderr tail; each agent session with its status and why it ended; a new
 * dashboard login link that works once; and one clear line when no daemon runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '@tutti/core/internal';
import { cleanUp, writeRelease, FIXTURES } from '@tutti/test-kit';
import {
  runTuttidCommand,
  startTuttid,
  stopAll,
  type TuttidProcess,
  waitForConnector,
} from '@tutti/test-kit/tuttid';

const FAULTY = `${FIXTURES}agents/faulty-agent.mjs`;

let root: string;
let home: string;
let daemon: TuttidProcess;
let exitedSession: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tuttid-operator-'));
  home = join(root, 'home');
  const store = await openStore(home);
  await store.install(await writeRelease({ key: 'fine', serverArgs: [] }));
  // Its server writes "401 invalid API key" to stderr and exits 2 (it wants X=1).
  await store.install(await writeRelease({ key: 'broken', serverArgs: ['--expect-env', 'X=1'] }));
  daemon = await startTuttid(home, ['--no-demo'], { until: 'ready' });
  await waitForConnector(daemon, 'fine');
  await waitForConnector(daemon, 'broken', ['failed']);
  // An ACP agent that starts fine and exits with code 4 half a second later.
  const started = await daemon.control('POST', '/v1/sessions', {
    provider: 'acp',
    permissions: 'agent',
    workspaceId: 'ws-exits',
    cwd: root,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, FAULT: 'exit-later' },
    launch: { command: process.execPath, args: [FAULTY, 'acp'] },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  exitedSession = started.body.session.id;
  for (;;) {
    const { body } = await daemon.control('GET', '/v1/sessions');
    const listed = body.sessions.find((session: { id: string }) => session.id === exitedSession);
    if (listed?.status === 'exited') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 120_000);

afterAll(async () => {
  await stopAll();
  await cleanUp();
  await rm(root, { recursive: true, force: true });
});

describe('tuttid status', () => {
  it('prints each connector with its status, and a failing one with its reason and stderr tail', async () => {
    // Between its retries it reads `failed` (during one, `starting`): ask until it does.
    let answer = await runTuttidCommand(['status', '--home', home]);
    while (!/^ {2}broken\s+failed/m.test(answer.stdout) && answer.code === 0) {
      answer = await runTuttidCommand(['status', '--home', home]);
    }
    const { code, stdout, stderr } = answer;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`tuttid is running (pid ${daemon.ready.pid}) on ${home}`);
    expect(stdout).toMatch(/^ {2}fine\s+ready\s+1\.0\.0\s+\d+ MCP tools? \(ready\)$/m);
    expect(stdout).toMatch(/^ {2}broken\s+failed\s+1\.0\.0\s+0 MCP tools \(failed\)/m);
    const broken = stdout.slice(stdout.indexOf('  broken'));
    expect(broken).toMatch(
      /^ {4}reason\s+Upstream MCP server "node" failed during startup: exit code 2/m,
    );
    expect(broken).toMatch(/^ {4}stderr\s+401 invalid API key$/m);
  });

  it('prints each agent session with its status and why it ended, its secrets masked', async () => {
    const { stdout } = await runTuttidCommand(['status', '--home', home]);
    expect(stdout).toContain('agent sessions (1)');
    const session = stdout.slice(stdout.indexOf(`  ${exitedSession}`));
    expect(session).toMatch(
      new RegExp(`^ {2}${exitedSession}\\s+acp\\s+exited\\s+connector \\w+\\s+agent$`, 'm'),
    );
    expect(session).toMatch(/^ {4}reason\s+.*exit code 4/m);
    expect(session).toMatch(/^ {4}exit\s+exit code 4$/m);
    expect(session).toContain('faulty-agent: exit-later (acp)');
    expect(stdout).not.toContain('sk-test-');
    expect(stdout).not.toContain(daemon.controlToken);
  });

  it('prints the same as one JSON object with --json, on the home TUTTI_HOME names', async () => {
    const brokenFailed = (text: string) =>
      text.includes('"key":"broken"') &&
      JSON.parse(text).connectors.some(
        (c: { key: string; runtime: { state: string } }) =>
          c.key === 'broken' && c.runtime.state === 'failed',
      );
    let answer = await runTuttidCommand(['status', '--json'], { TUTTI_HOME: home });
    while (answer.code === 0 && !brokenFailed(answer.stdout)) {
      answer = await runTuttidCommand(['status', '--json'], { TUTTI_HOME: home });
    }
    const { code, stdout } = answer;
    expect(code).toBe(0);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    const status = JSON.parse(stdout);
    expect(status).toMatchObject({ home, pid: daemon.ready.pid, restoring: false });
    const byKey = Object.fromEntries(
      status.connectors.map((c: { key: string; runtime: unknown }) => [c.key, c.runtime]),
    );
    expect(byKey.fine).toMatchObject({ state: 'ready', toolCount: expect.any(Number) });
    expect(byKey.broken).toMatchObject({
      state: 'failed',
      lastError: expect.stringContaining('exit code 2'),
      stderr: ['401 invalid API key'],
    });
    expect(status.sessions).toEqual([
      expect.objectContaining({
        id: exitedSession,
        status: 'exited',
        reason: expect.stringContaining('exit code 4'),
        exit: expect.objectContaining({ code: 4 }),
      }),
    ]);
    expect(stdout).not.toContain(daemon.controlToken);
  });
});

describe('tuttid dashboard', () => {
  it('prints a new one-time login link that signs in once', async () => {
    const { code, stdout } = await runTuttidCommand(['dashboard', '--home', home]);
    expect(code).toBe(0);
    const [link, note] = stdout.split('\n');
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#login=[A-Za-z0-9_-]{43}$/);
    expect(link).not.toBe(daemon.ready.dashboardLogin);
    expect(note).toContain('one-time login link');
    expect(stdout).not.toContain(daemon.controlToken);
    const url = new URL(link!);
    expect(url.origin).toBe(daemon.ready.controlUrl);
    const redeem = () =>
      fetch(new URL('/dashboard/login', url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url.origin },
        body: JSON.stringify({ code: url.hash.replace(/^#login=/, '') }),
      });
    const first = await redeem();
    expect(first.status).toBe(200);
    expect(((await first.json()) as { token?: string }).token).toEqual(expect.any(String));
    expect((await redeem()).status).toBe(401);
  });

  it('prints {url, expiresAt} with --json', async () => {
    const { code, stdout } = await runTuttidCommand(['dashboard', '--json'], { TUTTI_HOME: home });
    expect(code).toBe(0);
    const login = JSON.parse(stdout);
    expect(login.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#login=/);
    expect(login.expiresAt).toBeGreaterThan(Date.now());
  });
});

describe('on a home whose daemon stopped', () => {
  it('says in one line, exit 1, that no daemon runs and how to start one', async () => {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    for (const command of ['status', 'dashboard']) {
      const { code, stdout, stderr } = await runTuttidCommand([command, '--home', home]);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`tuttid ${command}: No tutti daemon is running for this tutti home`);
      expect(stderr).toContain('start one with `npm start` or `tuttid`');
      expect(stderr).toContain(home);
    }
  });
});
