import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTokenService } from '../auth/index.js';
import { isTuttiError } from '../errors/index.js';
import { createEventHub, type TuttiEvent } from '../events/index.js';
import { isProcessRunning } from '../process/index.js';
import { createConnectorMCPRegistry } from '../registry/index.js';
import { providerHooks, REFRESH_STAGES } from './hooks.js';
import { AgentSessionHost } from './host.js';
import type { AgentSessionHostOptions } from './host-types.js';
import { WAIT } from '@tutti/test-kit';
import { createFakeConnector, recordTokens } from '@tutti/test-kit/core/fake-connector';
import { installFakeProvider } from '@tutti/test-kit/core/fake-provider';

const hosts: AgentSessionHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function setup(options: Partial<AgentSessionHostOptions> = {}) {
  const real = createTokenService();
  const { tokens, events } = recordTokens(real);
  const registry = createConnectorMCPRegistry();
  const hub = createEventHub();
  const published: TuttiEvent[] = [];
  hub.subscribe({ write: (event) => published.push(event) > 0, onDrain: () => {}, end: () => {} });
  const sessionsDir = await mkdtemp(join(tmpdir(), 'tutti-host-test-'));
  dirs.push(sessionsDir);
  const host = new AgentSessionHost({
    connector: createFakeConnector(),
    tokens,
    registry,
    events: hub,
    sessionsDir,
    inheritedEnv: { HOME: '/home/daemon', LANG: 'C.UTF-8' },
    ...options,
  });
  hosts.push(host);
  const control = installFakeProvider(host, 'fake');
  const start = () =>
    host.createSession({
      provider: 'fake',
      workspaceId: 'ws',
      cwd: '/work',
      env: { PATH: '/bin' },
    });
  const tokenOf = (index: number) =>
    control.runtimes[index]!.mcpServers[0]!.headers.Authorization!.slice('Bearer '.length);
  const changeTools = (generation: number) =>
    registry.commit('github', generation, { callTool: async () => ({ content: [] }) }, [
      { name: `search_v${generation}`, inputSchema: { type: 'object' } },
    ]);
  return { host, real, events, control, start, tokenOf, changeTools, published, sessionsDir };
}

describe('AgentSessionHost', () => {
  it('starts a bound session with its own token and lists it as ready', async () => {
    const { host, real, control, start, tokenOf, published } = await setup();
    const info = await start();
    expect(info).toMatchObject({
      provider: 'fake',
      mode: 'daemon',
      status: 'ready',
      connector: 'bound',
    });
    expect(real.verify(tokenOf(0))).toMatchObject({ agentSessionId: info.id, workspaceId: 'ws' });
    expect(control.sent[0]).toEqual({ servers: control.runtimes[0]!.mcpServers });
    expect(host.listSessions()).toEqual([info]);
    expect(published.map((event) => event.type)).toEqual(['session.started']);
  });

  it("gives a daemon-driven agent the daemon's environment under the request's, shim folder first", async () => {
    const { control, start } = await setup();
    await start();
    expect(control.runtimes[0]!.env).toEqual({
      HOME: '/home/daemon',
      LANG: 'C.UTF-8',
      PATH: '/tutti/bin:/bin',
    });
  });

  it('revokes the token, closes the agent and runs sessionClose on close', async () => {
    const { host, real, control, start, tokenOf, published } = await setup();
    const closed: string[] = [];
    host.hooks.sessionClose.tapPromise('Audit', async (session) => {
      closed.push(session.agentSessionId);
    });
    const info = await start();
    await host.closeSession(info.id);
    expect(real.verify(tokenOf(0))).toBeUndefined();
    expect(control.closed).toBe(1);
    expect(closed).toEqual([info.id]);
    expect(host.listSessions()).toEqual([]);
    expect(published.at(-1)).toMatchObject({ type: 'session.ended', reason: 'closed' });
  });

  it('starts a plain session without a token when the provider declares no HTTP MCP', async () => {
    const { host, events } = await setup();
    const control = installFakeProvider(host, 'plain-agent', {
      httpMcp: false,
      listChanged: false,
    });
    const info = await host.createSession({
      provider: 'plain-agent',
      workspaceId: 'ws',
      cwd: '/w',
    });
    expect(info).toMatchObject({ status: 'ready', connector: 'plain' });
    expect(events.issued).toEqual([]);
    expect(control.runtimes[0]!.mcpServers).toEqual([]);
  });

  it('reports a provider failure naming the provider and forgets the session', async () => {
    const { host, events, control, start } = await setup();
    control.failWith = new Error('agent binary missing');
    const error = await start().catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_SESSION_START_FAILED')).toBe(true);
    expect((error as Error).message).toContain('Provider "fake"');
    expect(host.listSessions()).toEqual([]);
    expect(events.revoked).toHaveLength(1);
  });

  it('refuses unknown providers and operations a provider lacks', async () => {
    const { host } = await setup();
    await expect(
      host.createSession({ provider: 'nope', workspaceId: 'ws', cwd: '/w' }),
    ).rejects.toMatchObject({ code: 'TUTTI_ERR_SESSION_UNKNOWN_PROVIDER' });
    await expect(
      host.resumeSession({ provider: 'fake', workspaceId: 'ws', cwd: '/w' }, 'old'),
    ).rejects.toMatchObject({ code: 'TUTTI_ERR_SESSION_UNSUPPORTED' });
    await expect(host.closeSession('missing')).rejects.toMatchObject({
      code: 'TUTTI_ERR_SESSION_UNKNOWN',
    });
  });

  it('derives what a provider can do from its methods and the taps of its refresh chain', async () => {
    const { host } = await setup();
    expect(host.listProviders()).toEqual([
      {
        name: 'fake',
        capabilities: {
          httpMcp: true,
          listChanged: false,
          handshake: false,
          load: true,
          resume: false,
          refresh: ['list-changed', 'native-reload', 'reconnect-before-turn', 'resume-or-restart'],
          permissions: ['ask', 'allow-connector', 'agent'],
        },
      },
    ]);
  });

  it('refuses a permission mode its provider cannot keep, naming the mode and the provider, and starts no agent', async () => {
    const { host } = await setup();
    host.registerProvider({
      name: 'unchecked',
      flags: { httpMcp: true, listChanged: false },
      project: () => ({}),
      bindingsIn: () => [],
      driver: () => ({
        open: async () => {
          throw new Error('never opened');
        },
      }),
    });
    for (const permissions of [undefined, 'ask', 'allow-connector'] as const) {
      const refused = host.createSession({
        provider: 'unchecked',
        workspaceId: 'ws',
        cwd: '/w',
        ...(permissions ? { permissions } : {}),
      });
      await expect(refused).rejects.toMatchObject({
        code: 'TUTTI_ERR_SESSION_PERMISSIONS_UNSUPPORTED',
        status: 422,
      });
      await expect(refused).rejects.toThrow(`"${permissions ?? 'ask'}"`);
      await expect(refused).rejects.toThrow('"unchecked"');
    }
    expect(
      host.listProviders().find((p) => p.name === 'unchecked')?.capabilities.permissions,
    ).toEqual(['agent']);
    expect(host.listSessions()).toEqual([]);
  });

  it('loads an earlier session with a fresh binding through its sessionLoad projection', async () => {
    const { host, control } = await setup();
    const info = await host.loadSession(
      { provider: 'fake', workspaceId: 'ws', cwd: '/w' },
      'old-7',
    );
    expect(info).toMatchObject({ providerSessionId: 'old-7', connector: 'bound' });
    expect(control.sent[0]).toEqual({ servers: control.runtimes[0]!.mcpServers });
  });

  it("lets a third-party tap of the provider's hook see the binding and add to the params", async () => {
    const { host, control, start } = await setup();
    const seen: unknown[] = [];
    providerHooks(host.hooks, 'fake').sessionNew.tapPromise('Audit', async (params) => {
      seen.push(params.servers);
      return { ...params, audit: true };
    });
    await start();
    expect(seen).toEqual([control.runtimes[0]!.mcpServers]);
    expect(control.sent[0]).toMatchObject({
      audit: true,
      servers: control.runtimes[0]!.mcpServers,
    });
  });

  it('fails the session when a tap drops the binding, naming the tap, and starts no agent', async () => {
    const { host, control, start, events } = await setup();
    providerHooks(host.hooks, 'fake').sessionNew.tapPromise('Drops', async (params) => ({
      ...params,
      servers: [],
    }));
    const error = await start().catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_PROVIDER_BINDING_DROPPED')).toBe(true);
    expect((error as Error).message).toContain('Tap "Drops" of hook "sessionNew"');
    expect(control.sent).toEqual([]);
    expect(events.revoked).toHaveLength(1);
    expect(host.listSessions()).toEqual([]);
  });

  it.each([
    ['a daemon-driven start', 'create'],
    ['a host-driven prepare', 'prepareSession'],
    ['a self-spawned prepare', 'prepareOnly'],
  ] as const)(
    'revokes the token of %s whose prepare tap throws after the binding was made',
    async (_, form) => {
      const { host, real } = await setup();
      const seen: string[] = [];
      host.hooks.prepare.tapPromise('Breaks', async (runtime) => {
        seen.push(runtime.mcpServers[0]!.headers.Authorization!.slice('Bearer '.length));
        throw new Error('the audit log is full');
      });
      const request = { provider: 'fake', workspaceId: 'ws', cwd: '/w' };
      const started =
        form === 'create'
          ? host.createSession(request)
          : form === 'prepareSession'
            ? host.prepareSession(request)
            : host.prepareOnly({ ...request, flags: { httpMcp: true, listChanged: false } });
      await expect(started).rejects.toThrow('the audit log is full');
      expect(seen).toHaveLength(1);
      expect(real.verify(seen[0]!)).toBeUndefined();
    },
  );

  it('revokes the token a refresh issued when a prepare tap then throws', async () => {
    const { host, real, control, start, changeTools } = await setup();
    control.reload = true;
    await start();
    const seen: string[] = [];
    host.hooks.prepare.tapPromise('BreaksOnRefresh', async (runtime) => {
      seen.push(runtime.mcpServers[0]!.headers.Authorization!.slice('Bearer '.length));
      throw new Error('the audit log is full');
    });
    changeTools(1);
    await host.settled();
    expect(host.listSessions()[0]!.lastRefresh).toMatchObject({
      error: expect.stringContaining('the audit log is full'),
    });
    expect(seen).toHaveLength(1);
    expect(real.verify(seen[0]!)).toBeUndefined();
  });

  it('refreshes by native reload with freshly projected params and a new token', async () => {
    const { host, real, control, start, tokenOf, changeTools, published } = await setup();
    control.reload = true;
    const info = await start();
    changeTools(1);
    await host.settled();
    expect(host.listSessions()[0]!.lastRefresh).toEqual({
      version: expect.any(Number),
      strategy: 'native-reload',
    });
    expect(control.reloads).toEqual([{ servers: control.runtimes[1]!.mcpServers }]);
    expect(real.verify(tokenOf(0))).toBeUndefined();
    expect(real.verify(tokenOf(1))).toMatchObject({ agentSessionId: info.id });
    expect(published.at(-1)).toMatchObject({
      type: 'session.refreshed',
      session: info.id,
      strategy: 'native-reload',
      action: 'none',
    });
  });

  it('relies on the agent list_changed handling when the server delivers it', async () => {
    const { host, control, start, changeTools } = await setup({ listChangedDelivered: true });
    const listening = installFakeProvider(host, 'listening', { httpMcp: true, listChanged: true });
    listening.reload = true;
    control.reload = true;
    await host.createSession({ provider: 'listening', workspaceId: 'ws', cwd: '/w' });
    await start();
    changeTools(1);
    await host.settled();
    const strategies = Object.fromEntries(
      host.listSessions().map((session) => [session.provider, session.lastRefresh?.strategy]),
    );
    expect(strategies).toEqual({ listening: 'list-changed', fake: 'native-reload' });
    expect(listening.runtimes).toHaveLength(1);
  });

  it('asks for a resume or restart when no strategy can refresh the session', async () => {
    const { host, start, changeTools, published } = await setup();
    const info = await start();
    changeTools(1);
    await host.settled();
    expect(host.listSessions()[0]).toMatchObject({
      status: 'needs-restart',
      lastRefresh: { strategy: 'resume-or-restart' },
    });
    expect(published.map((event) => event.type)).toContain('session.needs-restart');
    expect(published.at(-1)).toMatchObject({ session: info.id, action: 'resume' });
  });

  it("tries a plugin strategy at its stage on one provider's chain only", async () => {
    const { host, control, start, changeTools } = await setup();
    control.reconnect = true;
    providerHooks(host.hooks, 'fake').toolsListChanged.tapPromise(
      {
        name: 'Custom',
        stage: (REFRESH_STAGES.nativeReload + REFRESH_STAGES.reconnectBeforeTurn) / 2,
      },
      async () => 'custom',
    );
    const other = installFakeProvider(host, 'other');
    other.reconnect = true;
    await start();
    await host.createSession({ provider: 'other', workspaceId: 'ws', cwd: '/w' });
    changeTools(1);
    await host.settled();
    const strategies = Object.fromEntries(
      host.listSessions().map((session) => [session.provider, session.lastRefresh?.strategy]),
    );
    expect(strategies).toEqual({ fake: 'custom', other: 'reconnect-before-turn' });
    expect(host.listProviders().find((p) => p.name === 'fake')?.capabilities.refresh).toContain(
      'Custom',
    );
  });

  it('does not refresh plain sessions', async () => {
    const { host, changeTools } = await setup();
    installFakeProvider(host, 'plain-agent', { httpMcp: false, listChanged: false });
    await host.createSession({ provider: 'plain-agent', workspaceId: 'ws', cwd: '/w' });
    changeTools(1);
    await host.settled();
    expect(host.listSessions()[0]!.lastRefresh).toBeUndefined();
  });

  it('marks a session exited with its exit code and stderr, revokes its token, when the agent ends on its own', async () => {
    const { host, real, control, start, tokenOf, published } = await setup();
    control.agentScript =
      "console.error('model key missing'); setTimeout(() => process.exit(3), 300);";
    const info = await start();
    expect(info.pid).toBeTypeOf('number');
    await expect.poll(() => host.listSessions()[0]?.status, WAIT).toBe('exited');
    const [ended] = host.listSessions();
    expect(ended).toMatchObject({
      exit: { code: 3, signal: null, description: 'exit code 3', stderr: ['model key missing'] },
    });
    expect(ended!.reason).toContain('exit code 3');
    await expect.poll(() => real.verify(tokenOf(0))).toBeUndefined();
    expect(published.at(-1)).toMatchObject({ type: 'session.ended', session: info.id });
    expect(isProcessRunning(info.pid!)).toBe(false);
  });

  it('stops the agent process and removes the session folder on close', async () => {
    const { host, control, start, sessionsDir } = await setup();
    control.agentScript = 'setInterval(() => {}, 1000);';
    const info = await start();
    expect(isProcessRunning(info.pid!)).toBe(true);
    await host.closeSession(info.id);
    expect(isProcessRunning(info.pid!)).toBe(false);
    await expect(stat(join(sessionsDir, 'x'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a session beyond the limit with a clear error', async () => {
    const { host, start } = await setup({ maxSessions: 2 });
    await start();
    await start();
    await expect(start()).rejects.toMatchObject({ code: 'TUTTI_ERR_SESSION_LIMIT', status: 429 });
    expect(host.listSessions()).toHaveLength(2);
  });

  it('counts only live sessions against the limit: an ended one stays listed and frees its place', async () => {
    const { host, control, start } = await setup({ maxSessions: 1 });
    control.agentScript = 'setTimeout(() => process.exit(3), 300);';
    const ended = await start();
    await expect.poll(() => host.listSessions()[0]?.status, WAIT).toBe('exited');
    control.agentScript = undefined;
    const next = await start();
    expect(host.listSessions().map((s) => [s.id, s.status])).toEqual([
      [ended.id, 'exited'],
      [next.id, 'ready'],
    ]);
    await expect(start()).rejects.toMatchObject({
      code: 'TUTTI_ERR_SESSION_LIMIT',
      message: expect.stringContaining('--max-sessions'),
    });
  });

  it('forgets a host-driven session whose prepare fails, and frees its place', async () => {
    const { host } = await setup({ maxSessions: 1 });
    let broken = true;
    host.hooks.prepare.tapPromise('Flaky', async (runtime) => {
      if (broken) throw new Error('the vault is locked');
      return runtime;
    });
    const ask = {
      provider: 'external',
      workspaceId: 'ws',
      cwd: '/w',
      flags: { httpMcp: true, listChanged: false },
    };
    await expect(host.prepareOnly(ask)).rejects.toThrow('the vault is locked');
    await expect(
      host.prepareSession({ provider: 'fake', workspaceId: 'ws2', cwd: '/w' }),
    ).rejects.toThrow('the vault is locked');
    expect(host.listSessions()).toEqual([]);
    broken = false;
    const { agentSessionId } = await host.prepareOnly(ask);
    expect(host.listSessions().map((session) => [session.id, session.status])).toEqual([
      [agentSessionId, 'prepared'],
    ]);
  });

  it('prepares a runtime for a self-spawned agent and revokes its token on close', async () => {
    const { host, real } = await setup();
    const { agentSessionId, runtime } = await host.prepareOnly({
      provider: 'external',
      workspaceId: 'ws',
      cwd: '/w',
      flags: { httpMcp: true, listChanged: false },
    });
    const token = runtime.mcpServers[0]!.headers.Authorization!.slice('Bearer '.length);
    expect(real.verify(token)).toMatchObject({ agentSessionId });
    expect(host.listSessions()[0]).toMatchObject({
      mode: 'host',
      status: 'prepared',
      connector: 'bound',
    });
    await host.closeSession(agentSessionId);
    expect(real.verify(token)).toBeUndefined();
  });

  it('re-issues the token of a host-driven session asked for again: the old one stops at once', async () => {
    const { host, real } = await setup();
    const request = {
      provider: 'external',
      workspaceId: 'ws',
      cwd: '/w',
      agentSessionId: 'host-1',
      flags: { httpMcp: true, listChanged: false },
    };
    const first = await host.prepareOnly(request);
    const second = await host.prepareOnly(request);
    const tokenOf = (runtime: typeof first.runtime) =>
      runtime.mcpServers[0]!.headers.Authorization!.slice('Bearer '.length);
    expect(real.verify(tokenOf(first.runtime))).toBeUndefined();
    expect(real.verify(tokenOf(second.runtime))).toMatchObject({ agentSessionId: 'host-1' });
    expect(host.listSessions()).toHaveLength(1);
  });

  it("refuses to re-issue a daemon-driven session's token through the prepare form", async () => {
    const { host } = await setup();
    const info = await host.createSession({
      provider: 'fake',
      workspaceId: 'ws',
      cwd: '/w',
      agentSessionId: 'driven-1',
    });
    await expect(
      host.prepareOnly({
        provider: 'external',
        workspaceId: 'ws',
        cwd: '/w',
        agentSessionId: info.id,
        flags: { httpMcp: true, listChanged: false },
      }),
    ).rejects.toMatchObject({ code: 'TUTTI_ERR_SESSION_EXISTS' });
  });

  it("answers a provider's projection to a host that spawns the agent, and the params to reload with after a change", async () => {
    const { host, control, changeTools, published, real } = await setup();
    control.reload = true;
    const prepared = await host.prepareSession({ provider: 'fake', workspaceId: 'ws', cwd: '/w' });
    expect(prepared.projection).toEqual({
      params: { servers: prepared.runtime.mcpServers },
      env: {},
    });
    expect(host.listSessions()[0]).toMatchObject({ mode: 'host', status: 'prepared' });
    changeTools(1);
    await host.settled();
    expect(published.at(-1)).toMatchObject({
      type: 'session.refreshed',
      session: prepared.agentSessionId,
      action: 'reload',
    });
    const next = host.session(prepared.agentSessionId).projection();
    const token = (servers: typeof prepared.runtime.mcpServers) =>
      servers[0]!.headers.Authorization!.slice('Bearer '.length);
    expect(real.verify(token(prepared.runtime.mcpServers))).toBeUndefined();
    expect(
      real.verify(token(next.params.servers as typeof prepared.runtime.mcpServers)),
    ).toMatchObject({
      agentSessionId: prepared.agentSessionId,
    });
  });

  it('ends the session whose code let an error escape, and only that one', async () => {
    const { host, start, real, tokenOf } = await setup();
    const doomed = await start();
    const spared = await start();
    expect(await host.session(doomed.id).fail(new Error('EPIPE on a pipe nobody watched'))).toBe(
      true,
    );
    const sessions = Object.fromEntries(host.listSessions().map((s) => [s.id, s]));
    expect(sessions[doomed.id]).toMatchObject({
      status: 'exited',
      reason: expect.stringContaining('EPIPE on a pipe nobody watched'),
    });
    expect(sessions[spared.id]).toMatchObject({ status: 'ready' });
    expect(real.verify(tokenOf(0))).toBeUndefined();
    expect(real.verify(tokenOf(1))).toBeDefined();
  });
});
