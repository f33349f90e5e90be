import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTokenService } from '../auth/index.js';
import { createEventHub, type TuttiEvent } from '../events/index.js';
import { createConnectorMCPRegistry } from '../registry/index.js';
import { AgentSessionHost } from './host.js';
import { sessionRecords } from './session-records.js';
import { createFakeConnector } from './test-support/fake-connector.js';
import { installFakeProvider } from './test-support/fake-provider.js';

const hosts: AgentSessionHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A host on `dir`'s records, as one daemon after another would start it. */
async function daemonHost(dir: string) {
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
  });
  hosts.push(host);
  const control = installFakeProvider(host, 'fake');
  return { host, tokens, published, records, control };
}

const SECRET_ENV = { OPENAI_API_KEY: 'sk-kept-apart-0123456789' };

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
