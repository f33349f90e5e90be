import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { WAIT } from '@tutti/test-kit';
import { installFakeProvider } from '@tutti/test-kit/core/fake-provider';
import { closeHostWorlds, hostWorld as setup } from '@tutti/test-kit/core/host-world';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { isProcessRunning } from '../process/index.js';
import { providerHooks } from './hooks.js';

afterEach(closeHostWorlds);

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
