// The session host keeping its sessions current when the tools change (the refresh chain).

import { installFakeProvider } from '@tutti/test-kit/core/fake-provider';
import { closeHostWorlds, hostWorld as setup } from '@tutti/test-kit/core/host-world';
import { afterEach, describe, expect, it } from 'vitest';
import { providerHooks, REFRESH_STAGES } from './hooks.js';

afterEach(closeHostWorlds);

describe('AgentSessionHost', () => {
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
});
