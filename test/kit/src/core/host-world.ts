/**
 * A session host on a fake connector and the fake provider `fake`, with a real token
 * service, registry and event hub: what the session host's own tests start from.
 * `closeHostWorlds()` (in an `afterEach`) closes every host made and removes its folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSessionHost, type AgentSessionHostOptions } from '@tutti/core';
import {
  type ConnectorMCPRegistry,
  createConnectorMCPRegistry,
  createEventHub,
  createTokenService,
  type TuttiEvent,
} from '@tutti/core/internal';
import { createFakeConnector, recordTokens } from './fake-connector.js';
import { installFakeProvider } from './fake-provider.js';

const hosts: AgentSessionHost[] = [];
const dirs: string[] = [];

/** Closes every host {@link hostWorld} made and removes its sessions folder. */
export async function closeHostWorlds(): Promise<void> {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
}

/** A host with the fake provider registered; `start()` starts one of its sessions. */
export async function hostWorld(options: Partial<AgentSessionHostOptions> = {}) {
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
  const changeTools = (generation: number): ReturnType<ConnectorMCPRegistry['commit']> =>
    registry.commit('github', generation, { callTool: async () => ({ content: [] }) }, [
      { name: `search_v${generation}`, inputSchema: { type: 'object' } },
    ]);
  return { host, real, events, control, start, tokenOf, changeTools, published, sessionsDir };
}
