import { afterEach, describe, expect, it } from 'vitest';
import { createTokenService } from '../auth/index.js';
import { isTuttiError } from '../errors/index.js';
import { createConnectorMCPRegistry } from '../registry/index.js';
import { AgentSessionHost } from './host.js';
import type { AgentSessionHostOptions } from './host-types.js';
import { REFRESH_STAGES } from './hooks.js';
import { createFakeConnector, recordTokens } from './test-support/fake-connector.js';
import { createFakeProvider } from './test-support/fake-provider.js';

const hosts: AgentSessionHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

function setup(options: Partial<AgentSessionHostOptions> = {}) {
  const real = createTokenService();
  const { tokens, events } = recordTokens(real);
  const registry = createConnectorMCPRegistry();
  const host = new AgentSessionHost({
    connector: createFakeConnector(),
    tokens,
    registry,
    ...options,
  });
  hosts.push(host);
  const { provider, control } = createFakeProvider('fake');
  host.registerProvider(provider);
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
  return { host, real, events, control, start, tokenOf, changeTools };
}

describe('AgentSessionHost', () => {
  it('starts a bound session with its own token and lists it as ready', async () => {
    const { host, real, control, start, tokenOf } = setup();
    const info = await start();
    expect(info).toMatchObject({ provider: 'fake', status: 'ready', connector: 'bound' });
    expect(real.verify(tokenOf(0))).toMatchObject({ agentSessionId: info.id, workspaceId: 'ws' });
    expect(control.sent[0]).toEqual({ servers: control.runtimes[0]!.mcpServers });
    expect(host.listSessions()).toEqual([info]);
  });

  it('revokes the token, closes the agent and runs sessionClose on close', async () => {
    const { host, real, control, start, tokenOf } = setup();
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
  });

  it('starts a plain session without a token when the agent declares no HTTP MCP', async () => {
    const { events, control, start } = setup();
    control.probe = { httpMcp: false };
    expect(await start()).toMatchObject({ status: 'ready', connector: 'plain' });
    expect(events.issued).toEqual([]);
    expect(control.runtimes[0]!.mcpServers).toEqual([]);
  });

  it('reports a provider failure naming the provider and forgets the session', async () => {
    const { host, events, control, start } = setup();
    control.failWith = new Error('agent binary missing');
    const error = await start().catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_SESSION_START_FAILED')).toBe(true);
    expect((error as Error).message).toContain('Provider "fake"');
    expect(host.listSessions()).toEqual([]);
    expect(events.revoked).toHaveLength(1);
  });

  it('refuses unknown providers and operations a provider lacks', async () => {
    const { host } = setup();
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

  it('loads an earlier session with a fresh binding through sessionLoad', async () => {
    const { host, control } = setup();
    const info = await host.loadSession(
      { provider: 'fake', workspaceId: 'ws', cwd: '/w' },
      'old-7',
    );
    expect(info).toMatchObject({ providerSessionId: 'old-7', connector: 'bound' });
    expect(control.sent[0]).toEqual({ servers: control.runtimes[0]!.mcpServers });
  });

  it('refreshes by native reload with a new token when the tool list changes', async () => {
    const { host, real, control, start, tokenOf, changeTools } = setup();
    control.reload = true;
    const info = await start();
    changeTools(1);
    await host.settled();
    expect(host.listSessions()[0]!.lastRefresh).toEqual({
      version: expect.any(Number),
      strategy: 'native-reload',
    });
    expect(control.runtimes).toHaveLength(2);
    expect(real.verify(tokenOf(0))).toBeUndefined();
    expect(real.verify(tokenOf(1))).toMatchObject({ agentSessionId: info.id });
  });

  it('relies on the agent list_changed handling when the server delivers it', async () => {
    const { host, control, start, changeTools } = setup({ listChangedDelivered: true });
    const { provider, control: listening } = createFakeProvider('listening', {
      httpMcp: true,
      listChanged: true,
    });
    host.registerProvider(provider);
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
    const { host, start, changeTools } = setup();
    await start();
    changeTools(1);
    await host.settled();
    expect(host.listSessions()[0]).toMatchObject({
      status: 'needs-restart',
      lastRefresh: { strategy: 'resume-or-restart' },
    });
  });

  it('tries a plugin strategy at its stage between the standard ones', async () => {
    const { host, control, start, changeTools } = setup();
    control.reconnect = true;
    host.hooks.toolsListChanged.tapPromise(
      {
        name: 'Custom',
        stage: (REFRESH_STAGES.nativeReload + REFRESH_STAGES.reconnectBeforeTurn) / 2,
      },
      async () => 'custom',
    );
    await start();
    changeTools(1);
    await host.settled();
    expect(host.listSessions()[0]!.lastRefresh?.strategy).toBe('custom');
  });

  it('does not refresh plain sessions', async () => {
    const { host, control, start, changeTools } = setup();
    control.probe = { httpMcp: false };
    await start();
    changeTools(1);
    await host.settled();
    expect(host.listSessions()[0]!.lastRefresh).toBeUndefined();
  });

  it('marks a session exited and revokes its token when the agent ends on its own', async () => {
    const { host, real, control, start, tokenOf } = setup();
    await start();
    control.exit('code 1');
    await host.settled();
    expect(host.listSessions()[0]!.status).toBe('exited');
    expect(real.verify(tokenOf(0))).toBeUndefined();
  });

  it('prepares a runtime for a self-spawned agent and revokes its token on close', async () => {
    const { host, real } = setup();
    const { agentSessionId, runtime } = await host.prepareOnly({
      provider: 'external',
      workspaceId: 'ws',
      cwd: '/w',
      capabilities: { httpMcp: true },
    });
    const token = runtime.mcpServers[0]!.headers.Authorization!.slice('Bearer '.length);
    expect(real.verify(token)).toMatchObject({ agentSessionId });
    expect(host.listSessions()[0]).toMatchObject({ status: 'prepared', connector: 'bound' });
    await host.closeSession(agentSessionId);
    expect(real.verify(token)).toBeUndefined();
  });
});
