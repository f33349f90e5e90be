import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTokenService } from '../auth/index.js';
import { createEventHub, type TuttiEvent } from '../events/index.js';
import { createConnectorMCPRegistry } from '../registry/index.js';
import { AgentSessionHost } from './host.js';
import { sessionRecords } from './session-records.js';
import { WAIT } from '@tutti/test-kit';
import { createFakeConnector } from '@tutti/test-kit/core/fake-connector';
import { installFakeProvider } from '@tutti/test-kit/core/fake-provider';

const hosts: AgentSessionHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A host on `dir`'s records, as one daemon after another would start it. */
async function daemonHost(
  dir: string,
  options: { maxSessions?: number; restoreWithinMs?: number } = {},
) {
  const tokens = createTokenService();
  const events = createEventHub();
  const published: TuttiEvent[] = [];
  events.subscribe({
    write: (event) => published.push(event) > 0,
    onDrain: () => {},
    end: () => {},
  });
  const records = sessionRecords(join(dir, 'records'));
  const host = new AgentSessionHost({
    connector: createFakeConnector(),
    tokens,
    registry: createConnectorMCPRegistry(),
    events,
    sessionsDir: dir,
    records,
    ...options,
  });
  hosts.push(host);
  const control = installFakeProvider(host, 'fake');
  return { host, tokens, published, records, control };
}

const SECRET_ENV = { OPENAI_API_KEY: 'sk-kept-apart-0123456789' };

/** Runs one turn of a session to its end (the fake's turns end at once). */
async function takeTurn(host: AgentSessionHost, id: string): Promise<void> {
  const { done } = await host.session(id).startTurn([{ type: 'text', text: 'hi' }], () => {});
  await done;
}

/** A host whose previous daemon left `count` sessions, none of which can come back now. */
async function needingRestart(dir: string, count: number, options: { maxSessions?: number } = {}) {
  const first = await daemonHost(dir);
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const info = await first.host.createSession({ provider: 'fake', workspaceId: 'ws', cwd: '/w' });
    await takeTurn(first.host, info.id);
    ids.push(info.id);
  }
  await first.host.suspend();
  const next = await daemonHost(dir, options);
  next.control.failWith = new Error('the agent binary is gone');
  await next.host.restoreSessions(next.records.list());
  return { ...next, ids };
}

describe('sessions across a daemon restart', () => {
  it('records a session without its token, its environment apart and private, and forgets it on close', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const { host, control } = await daemonHost(dir);
    const info = await host.createSession({
      provider: 'fake',
      workspaceId: 'ws',
      cwd: '/work',
      env: SECRET_ENV,
      launch: { command: '/opt/agent', args: ['acp'], env: { AGENT_FLAG: '1' } },
    });
    const folder = join(dir, 'records');
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    const files = (await readdir(folder)).sort();
    expect(files).toHaveLength(2);
    const token = control.runtimes[0]!.mcpServers[0]!.headers.Authorization!;
    for (const file of files) {
      expect((await stat(join(folder, file))).mode & 0o777).toBe(0o600);
      expect(await readFile(join(folder, file), 'utf8')).not.toContain(token.slice(7));
    }
    const record = JSON.parse(
      await readFile(join(folder, files.find((f) => !f.endsWith('.env.json'))!), 'utf8'),
    );
    expect(record).toMatchObject({
      agentSessionId: info.id,
      provider: 'fake',
      providerSessionId: 'fake-new',
      cwd: '/work',
      launch: { command: '/opt/agent', args: ['acp'] },
    });
    expect(JSON.stringify(record)).not.toContain(SECRET_ENV.OPENAI_API_KEY);

    await host.closeSession(info.id);
    expect(await readdir(folder)).toEqual([]);
  });

  it('forgets the record of a session whose agent ended on its own, so no next start brings it back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const { host, control, records } = await daemonHost(dir);
    control.agentScript = 'setTimeout(() => process.exit(3), 300);';
    const info = await host.createSession({
      provider: 'fake',
      workspaceId: 'ws',
      cwd: '/work',
      env: SECRET_ENV,
    });
    expect((await records.list()).map((s) => s.record.agentSessionId)).toEqual([info.id]);
    await expect.poll(() => host.listSessions()[0]?.status, WAIT).toBe('exited');
    await expect.poll(async () => readdir(join(dir, 'records')), WAIT).toEqual([]);
    expect(host.listSessions()[0]).toMatchObject({ id: info.id, status: 'exited' });
  });

  it('brings a recorded session back in the next host by its provider session id, with a new token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const first = await daemonHost(dir);
    const info = await first.host.createSession({
      provider: 'fake',
      workspaceId: 'ws',
      cwd: '/work',
      env: SECRET_ENV,
    });
    const oldToken = first.control.runtimes[0]!.mcpServers[0]!.headers.Authorization!.slice(7);
    await takeTurn(first.host, info.id);
    await first.host.suspend();

    const next = await daemonHost(dir);
    const stored = await next.records.list();
    expect(stored.map((s) => s.env)).toEqual([SECRET_ENV]);
    const restoring = next.host.restoreSessions(stored);
    expect(next.host.restoring).toBe(true);
    const [result] = await restoring;
    expect(next.host.restoring).toBe(false);
    expect(result!.info).toMatchObject({ id: info.id, status: 'ready', connector: 'bound' });
    // The fake has no resume: the host loaded the provider's session.
    expect(result!.info!.providerSessionId).toBe('fake-new');
    expect(next.control.opened).toEqual(['load']);
    const newToken = next.control.runtimes[0]!.mcpServers[0]!.headers.Authorization!.slice(7);
    expect(newToken).not.toBe(oldToken);
    expect(next.tokens.verify(oldToken)).toBeUndefined();
    expect(next.tokens.verify(newToken)).toMatchObject({ agentSessionId: info.id });
    expect(next.control.runtimes[0]!.env).toMatchObject(SECRET_ENV);
    expect(next.published.map((event) => event.type)).toEqual([
      'session.started',
      'sessions.restored',
    ]);
    expect(next.published.at(-1)).toMatchObject({ resumed: 1, needsRestart: 0 });
  });

  it('lists a session whose open fails as needs-restart with the reason, and keeps its record', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const first = await daemonHost(dir);
    const info = await first.host.createSession({ provider: 'fake', workspaceId: 'ws', cwd: '/w' });
    await takeTurn(first.host, info.id);
    await first.host.suspend();

    const next = await daemonHost(dir);
    next.control.failWith = new Error('the agent binary is gone');
    const [result] = await next.host.restoreSessions(next.records.list());
    expect(result!.info).toMatchObject({ id: info.id, status: 'needs-restart' });
    expect(result!.info!.reason).toContain('load');
    expect(result!.info!.reason).toContain('the agent binary is gone');
    expect(next.published.map((event) => event.type)).toEqual([
      'session.needs-restart',
      'sessions.restored',
    ]);
    expect(await next.records.list()).toHaveLength(1);
    // Closing it is how the user forgets it.
    await next.host.closeSession(info.id);
    expect(await next.records.list()).toEqual([]);
  });

  it('starts a session that had no turn afresh after a restart, without asking', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const first = await daemonHost(dir);
    const info = await first.host.createSession({ provider: 'fake', workspaceId: 'ws', cwd: '/w' });
    await first.host.suspend();

    const next = await daemonHost(dir);
    const [result] = await next.host.restoreSessions(next.records.list());
    expect(result!.info).toMatchObject({ id: info.id, status: 'ready', connector: 'bound' });
    expect(next.control.opened).toEqual(['new']);
    // Once it has had a turn, the next restart brings it back with its history.
    await takeTurn(next.host, info.id);
    expect((await next.records.list())[0]!.record.turns).toBe(true);
  });

  it('restarts a needs-restart session: loaded when it can be, and says how', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const { host, control, ids } = await needingRestart(dir, 1);
    expect(host.listSessions()[0]).toMatchObject({ id: ids[0], status: 'needs-restart' });
    control.failWith = undefined;
    const restarted = await host.session(ids[0]!).restart();
    expect(restarted).toMatchObject({ id: ids[0], status: 'ready', restartedAs: 'loaded' });
    expect(control.opened).toEqual(['load']);
    await expect(host.session(ids[0]!).restart()).rejects.toMatchObject({
      code: 'TUTTI_ERR_SESSION_NOT_RESTARTABLE',
    });
  });

  it('restarts afresh a needs-restart session whose history cannot be loaded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const { host, control, ids } = await needingRestart(dir, 1);
    let opens = 0;
    // The first open (the load) fails as a lost history would; the fresh start works.
    Object.defineProperty(control, 'failWith', {
      get: () => (opens++ === 0 ? new Error('No conversation found') : undefined),
    });
    const restarted = await host.session(ids[0]!).restart();
    expect(restarted).toMatchObject({ id: ids[0], status: 'ready', restartedAs: 'fresh' });
    expect(control.opened).toEqual(['new']);
  });

  it('keeps a session needs-restart, with the new reason, when its restart fails too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const { host, ids } = await needingRestart(dir, 1);
    await expect(host.session(ids[0]!).restart()).rejects.toMatchObject({
      code: 'TUTTI_ERR_SESSION_RESTART_FAILED',
    });
    const [listed] = host.listSessions();
    expect(listed).toMatchObject({ id: ids[0], status: 'needs-restart' });
    expect(listed!.reason).toContain('could not be restarted');
    expect(listed!.reason).toContain('the agent binary is gone');
    expect(listed!.reason).not.toContain('..');
  });

  it('does not count needs-restart sessions against the session limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const { host, control, ids } = await needingRestart(dir, 3, { maxSessions: 3 });
    expect(host.listSessions().map((s) => s.status)).toEqual([
      'needs-restart',
      'needs-restart',
      'needs-restart',
    ]);
    control.failWith = undefined;
    const fresh = await host.createSession({ provider: 'fake', workspaceId: 'ws', cwd: '/w' });
    expect(fresh.status).toBe('ready');
    // A restart counts as a live session: two more fit under 3, the third is refused.
    await host.session(ids[0]!).restart();
    await host.session(ids[1]!).restart();
    await expect(host.session(ids[2]!).restart()).rejects.toMatchObject({
      code: 'TUTTI_ERR_SESSION_RESTART_FAILED',
    });
  });

  it('starts a new session under the id of one that is not live instead of refusing it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const { host, control, ids } = await needingRestart(dir, 1);
    control.failWith = undefined;
    const info = await host.createSession({
      provider: 'fake',
      workspaceId: 'ws',
      cwd: '/w',
      agentSessionId: ids[0]!,
    });
    expect(info).toMatchObject({ id: ids[0], status: 'ready' });
    expect(host.listSessions()).toHaveLength(1);
    await expect(
      host.createSession({
        provider: 'fake',
        workspaceId: 'ws',
        cwd: '/w',
        agentSessionId: ids[0]!,
      }),
    ).rejects.toMatchObject({ code: 'TUTTI_ERR_SESSION_EXISTS' });
  });

  it('lists a recorded session needs-restart once the restore deadline has passed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const first = await daemonHost(dir);
    const info = await first.host.createSession({ provider: 'fake', workspaceId: 'ws', cwd: '/w' });
    await takeTurn(first.host, info.id);
    await first.host.suspend();
    const next = await daemonHost(dir, { restoreWithinMs: 0 });
    const [result] = await next.host.restoreSessions(next.records.list());
    expect(result!.info).toMatchObject({ id: info.id, status: 'needs-restart' });
    expect(result!.info!.reason).toContain('within 0 s');
    expect(next.control.opened).toEqual([]);
  });

  it('skips a record it cannot read and says which', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-restore-test-'));
    dirs.push(dir);
    const { records } = await daemonHost(dir);
    await records.put(
      {
        agentSessionId: 'a',
        workspaceId: 'ws',
        provider: 'fake',
        cwd: '/w',
        launch: {},
        permissions: 'ask',
        settings: [],
        startedAt: new Date().toISOString(),
        turns: true,
      },
      {},
      {},
    );
    await writeFile(join(dir, 'records', 'broken.json'), '{"agentSessionId":');
    const problems: string[] = [];
    const listed = await records.list((file) => problems.push(file));
    expect(listed.map((s) => s.record.agentSessionId)).toEqual(['a']);
    expect(problems).toEqual([join(dir, 'records', 'broken.json')]);
  });
});
