// Host-driven sessions: prepared for a host that spawns the agent itself.

import { closeHostWorlds, hostWorld as setup } from '@tutti/test-kit/core/host-world';
import { afterEach, describe, expect, it } from 'vitest';

afterEach(closeHostWorlds);

describe('AgentSessionHost', () => {
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
});
