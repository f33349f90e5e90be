/**
 * A real `tuttid` for agent-session tests: every temp folder the daemon and its agents
 * write to (TMPDIR for session homes, the daemon's own CODEX_HOME, the agents' HOME and
 * XDG folders) lives under one root removed by `dispose`, which also stops the daemon.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import type { AgentSessionInfo } from '@tutti/core';
import { type AgentHomes, createAgentHomes } from './agent-env.js';
import { isProcessGroupAlive as groupHasLiveMember, openStore } from '@tutti/core/internal';
import { mcpRequest } from './mcp-request.js';
import { writeRelease } from './releases.js';
import { startTuttid, stopAll, type TuttidProcess } from './tuttid.js';
import { WAIT } from './waits.js';

/** A daemon with no demo connectors and the agents' throw-away environment. */
export interface AgentDaemon extends AgentHomes {
  /** The daemon running now (a new one after {@link AgentDaemon.restart}). */
  readonly daemon: TuttidProcess;
  /**
   * Ends the daemon with `signal` and starts a new one on the same home and environment,
   * resolving once its connectors settled (`until: 'ready'`: once its servers listen).
   */
  restart(
    signal: 'SIGKILL' | 'SIGTERM',
    options?: { until?: 'ready' | 'settled' },
  ): Promise<TuttidProcess>;
  /** Installs a release folder and returns the control API's answer body. */
  install(path: string): Promise<{ key: string; runtime: { state: string } | null }>;
  /** Starts an agent session through the control API; fails the test unless it answers 200. */
  startSession(body: Record<string, unknown>): Promise<AgentSessionInfo>;
  /** The session as `GET /v1/sessions` shows it now. */
  session(id: string): Promise<AgentSessionInfo | undefined>;
  /** Version and tool count of the registry as `GET /debug/registry` shows it. */
  registry(): Promise<{ version: number; toolCount: number; names: string[] }>;
  /** Status of a `tools/list` POSTed to the connector server with `token`. */
  listStatus(token: string): Promise<number>;
  dispose(): Promise<void>;
}

/** What else the daemon is started with. */
export interface AgentDaemonOptions {
  /** More `tuttid` arguments. */
  readonly args?: readonly string[];
  /**
   * Start the daemon itself with the agents' throw-away HOME, XDG folders and PATH (with
   * `node_modules/.bin`), so an agent started with no `env` in its request inherits them.
   */
  readonly agentHome?: boolean;
  /** More variables of the daemon's own environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Drop-in plugin files written into `<home>/plugins` before the daemon starts: name -> source. */
  readonly plugins?: Readonly<Record<string, string>>;
  /** Release folders installed into the home before the daemon starts. */
  readonly installed?: readonly string[];
  /** Resolve once the daemon is ready, while its connectors may still be starting. */
  readonly untilReady?: boolean;
  /** Agent descriptors written into `<home>/agents` before the daemon starts: name -> JSON. */
  readonly agentsDir?: Readonly<Record<string, unknown>>;
}

/** Starts `tuttid --no-demo` with its temp folders under a fresh root. */
export async function startAgentDaemon(options: AgentDaemonOptions = {}): Promise<AgentDaemon> {
  const homes = await createAgentHomes();
  const { agentEnv } = homes;
  // Read by the tuttid process it spawns, which copies this process's env.
  vi.stubEnv('TMPDIR', homes.tmp);
  vi.stubEnv('CODEX_HOME', homes.codexHome);
  vi.stubEnv('TUTTI_AGENT_HOME', homes.tuttiAgentHome);
  if (options.agentHome) {
    for (const [name, value] of Object.entries(homes.env)) vi.stubEnv(name, value);
  }
  for (const [name, value] of Object.entries(options.env ?? {})) vi.stubEnv(name, value);
  const home = join(agentEnv.root, 'tutti-home');
  if (options.plugins) {
    await mkdir(join(home, 'plugins'), { recursive: true });
    for (const [name, source] of Object.entries(options.plugins)) {
      await writeFile(join(home, 'plugins', name), source);
    }
  }
  if (options.installed?.length) {
    const store = await openStore(home);
    for (const release of options.installed) await store.install(release);
  }
  if (options.agentsDir) {
    await mkdir(join(home, 'agents'), { recursive: true });
    for (const [name, json] of Object.entries(options.agentsDir)) {
      await writeFile(join(home, 'agents', name), JSON.stringify(json));
    }
  }
  let daemon: TuttidProcess;
  try {
    daemon = await startTuttid(home, ['--no-demo', ...(options.args ?? [])], {
      until: options.untilReady ? 'ready' : 'settled',
    });
  } catch (error) {
    vi.unstubAllEnvs();
    await agentEnv.dispose();
    throw error;
  }

  const ok = async (method: string, path: string, body?: unknown) => {
    const answer = await daemon.control(method, path, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };

  const args = ['--no-demo', ...(options.args ?? [])];
  return {
    get daemon() {
      return daemon;
    },
    async restart(signal, restartOptions) {
      daemon.child.kill(signal);
      await daemon.exited;
      daemon = await startTuttid(home, args, restartOptions);
      return daemon;
    },
    ...homes,
    install: (path) => ok('POST', '/v1/connectors/install', { path }),
    async startSession(body) {
      return (await ok('POST', '/v1/sessions', body)).session;
    },
    async session(id) {
      const { sessions } = (await ok('GET', '/v1/sessions')) as { sessions: AgentSessionInfo[] };
      return sessions.find((session) => session.id === id);
    },
    async registry() {
      const { registry } = await ok('GET', '/debug/registry');
      const names = (registry.routes as { tools: { localName: string }[] }[])
        .flatMap((route) => route.tools.map((tool) => tool.localName))
        .sort();
      return { version: registry.version, toolCount: registry.toolCount, names };
    },
    async listStatus(token) {
      const binding = { url: daemon.ready.mcpUrl, headers: { authorization: `Bearer ${token}` } };
      return (await mcpRequest(binding, 'tools/list')).status;
    },
    async dispose() {
      await stopAll();
      vi.unstubAllEnvs();
      await agentEnv.dispose();
    },
  };
}

/** True while a process with `pid` exists (a reaped one does not). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves once no live process is left in group `pgid`. Closing a session waits for the
 * agent (the group leader) to exit, then SIGKILLs the group; a member still tearing down
 * after that SIGKILL can outlive the answer by a moment.
 */
export async function groupEnds(pgid: number): Promise<void> {
  await expect.poll(() => groupHasLiveMember(pgid), { ...WAIT, interval: 20 }).toBe(false);
}

/** Bearer tokens in the order they appear in `text` (a recorded stdin, a config file). */
export function bearerTokens(text: string): string[] {
  return [...text.matchAll(/Bearer ([A-Za-z0-9_-]{20,})/g)].map((match) => match[1]!);
}

/** Bearer tokens in the file at `path`. */
export async function bearerTokensIn(path: string): Promise<string[]> {
  return bearerTokens(await readFile(path, 'utf8'));
}

/** How a test waits for an agent to list, refresh or come back: up to the kit's bound. */
export const AGENT_POLL = WAIT;

/**
 * Checks a session just started: ready and bound, listed as such, and its agent listed the
 * registry's tools as they were at `listed` with its own token.
 */
export async function expectBoundAndListed(
  agents: AgentDaemon,
  info: AgentSessionInfo,
  provider: string,
  listed: { version: number; toolCount: number },
): Promise<void> {
  expect(info).toMatchObject({ provider, status: 'ready', connector: 'bound' });
  expect(info.pid).toBeTypeOf('number');
  expect(await agents.session(info.id)).toMatchObject({ status: 'ready', connector: 'bound' });
  await expect
    .poll(async () => (await agents.session(info.id))?.toolsListed, AGENT_POLL)
    .toMatchObject({ version: listed.version, toolCount: listed.toolCount });
}

/**
 * Installs a second connector (`second`, tool `second_echo`) into the running daemon and
 * returns the registry after it.
 */
export async function installSecondConnector(
  agents: AgentDaemon,
): Promise<{ version: number; toolCount: number; names: string[] }> {
  await agents.install(await writeRelease({ key: 'second', serverArgs: [] }));
  const after = await agents.registry();
  expect(after.names).toContain('second_echo');
  return after;
}

/**
 * Waits until the session was refreshed by `strategy` and its agent listed the registry's
 * tools as they are at `listed`.
 */
export async function expectRefreshed(
  agents: AgentDaemon,
  info: AgentSessionInfo,
  strategy: string,
  listed: { version: number; toolCount: number },
): Promise<void> {
  await expect
    .poll(async () => {
      const session = await agents.session(info.id);
      const listed = session?.toolsListed;
      return {
        strategy: session?.lastRefresh?.strategy,
        listed: listed && { version: listed.version, toolCount: listed.toolCount },
      };
    }, AGENT_POLL)
    .toEqual({ strategy, listed: { version: listed.version, toolCount: listed.toolCount } });
}

/**
 * Closes a session through `DELETE /v1/sessions/:id` and checks it is gone: the agent's
 * process and group, its listing, and `token` (now 401), and that no token in `tokens` was
 * ever printed by the daemon.
 */
export async function expectClosed(
  agents: AgentDaemon,
  info: AgentSessionInfo,
  token: string,
  tokens: readonly string[] = [token],
): Promise<void> {
  const closed = await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
  expect(closed).toMatchObject({ status: 200, body: { closed: info.id } });
  expect(processExists(info.pid!)).toBe(false);
  await groupEnds(info.pid!);
  expect(await agents.listStatus(token)).toBe(401);
  expect(await agents.session(info.id)).toBeUndefined();
  const printed = agents.daemon.stdout() + agents.daemon.stderr();
  for (const each of tokens) expect(printed).not.toContain(each);
}
