/**
 * The generic ACP engine as a provider, and the taps that make it one: a handshake
 * (`initialize`) on the spawned agent decides the connector context (only an agent that
 * declares `agentCapabilities.mcpCapabilities.http === true` gets it; one that does not
 * answer gets a plain session that still starts), the projection taps build the ACP
 * session params, and the refresh tap re-sends them through `session/resume` or
 * `session/load` when the agent can take them. What differs between agents is data in
 * their descriptor: the session home, how skills and guidance reach the agent, the session
 * mode set after each open.
 */
import type { InitializeResponse } from '@agentclientprotocol/sdk';
import {
  type AgentProcess,
  type AgentProvider,
  type Materialized,
  openAgentChannel,
  type PluginHost,
  type PreparedRuntime,
  PROJECTION_STAGE,
  providerHooks,
  REFRESH_STAGES,
  REFRESH_STRATEGIES,
  type SessionHookContext,
  type SessionSetup,
  createSkillPlugin,
  TuttiError,
} from '@tutti/core';
import { join } from 'node:path';
import type { AcpConnection } from './acp-connection.js';

/**
 * The connection module, with the ACP SDK, loaded by the first ACP session rather than with
 * the plugin: the SDK costs about 0.25 s of CPU, and most daemon starts run no ACP agent.
 */
const loadConnection = () => import('./acp-connection.js');
import { PLUGIN_DIR, withDeliveries } from './acp-deliveries.js';
import {
  buildAgentHome,
  linkConnectorSkills,
  resetGuidance,
  writeBackFiles,
  writeGuidance,
} from './agent-home.js';
import { writePermissionFiles } from './permission-files.js';
import { AcpSession, reloadOperation } from './acp-session.js';
import type { AcpAgentDescriptor } from './descriptors.js';
import { type AcpSessionParams, bindingsInParams, sessionParams } from './project-params.js';

/** Long enough for a cold opencode on a loaded 2-core machine (measured up to ~20 s). */
const DEFAULT_INITIALIZE_TIMEOUT_MS = 45_000;
const PLUGIN_NAME = 'AcpProvider';

/** What the handshake leaves for opening the session (a restart replaces it). */
export interface AcpState {
  connection: AcpConnection;
  initialize: InitializeResponse | undefined;
  agent: AgentProcess;
}

declare module '@tutti/core' {
  interface ProviderParamsMap {
    acp: AcpSessionParams;
    opencode: AcpSessionParams;
  }
}

/** One session's start as the engine tracks it between its steps. */
interface Start {
  /** What prelaunch added to the agent's start (a restart starts it the same way). */
  readonly pre: Materialized;
  /** The guidance the agent's start-read instructions file holds (undefined: none). */
  startedWith: string | undefined;
  /** The daemon-driven session's agent, once its handshake ran. */
  state?: AcpState;
}

/** Starts of sessions in progress, by their setup. */
const starts = new WeakMap<SessionSetup, Start>();

/** Where the engine says what went wrong outside a request (never a secret). */
export interface AcpEngineLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** A provider that drives the ACP agent `descriptor` describes. */
export function createAcpProvider(
  descriptor: AcpAgentDescriptor,
  options: { readonly logger?: AcpEngineLogger | undefined } = {},
): AgentProvider<string, AcpState, AcpSessionParams> {
  const skills = descriptor.skills ?? { via: 'none' };
  const guidance = descriptor.guidance ?? { via: 'none' };
  const startRead =
    guidance.via === 'home-file' && guidance.readAt === 'start' ? guidance : undefined;
  const homeEnv = (setup: SessionSetup, pre: Materialized | undefined) => ({
    ...setup.launch.env,
    ...pre?.env,
  });

  /** Connects to a spawned agent and asks `initialize`. */
  async function handshakeWith(agent: AgentProcess, setup: SessionSetup): Promise<AcpState> {
    const acp = await loadConnection();
    const connection = acp.connectAcp(descriptor.name, openAgentChannel(agent, descriptor.limits));
    // Until a turn runs, nobody can answer a permission request: it is cancelled, not an error.
    connection.handle('session/request_permission', async () => ({
      outcome: { outcome: 'cancelled' },
    }));
    const initialize = await acp.probeAgent(
      connection,
      Math.min(descriptor.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS, setup.timeoutMs),
    );
    return { connection, initialize, agent };
  }

  /**
   * Starts the agent once more, the way prelaunch started it, for an agent that reads its
   * instructions only at start and was started with others than the prepared session's.
   */
  async function restart(start: Start, setup: SessionSetup): Promise<void> {
    const state = start.state!;
    state.connection.close();
    await state.agent.terminate();
    const agent = setup.spawn({
      ...(start.pre.env ? { env: start.pre.env } : {}),
      ...(start.pre.args?.length ? { args: [...setup.launch.args, ...start.pre.args] } : {}),
    });
    await agent.started;
    const next = await handshakeWith(agent, setup);
    if (!next.initialize) {
      throw new TuttiError('TUTTI_ERR_PROVIDER_REQUEST_FAILED', {
        provider: descriptor.name,
        method: 'initialize',
        reason:
          'the agent, started again to read the instructions of the prepared session, did not answer',
      });
    }
    Object.assign(state, next);
  }

  /** Sets the descriptor's session mode unless the agent already is in it. */
  async function setMode(
    connection: AcpConnection,
    sessionId: string,
    result: Record<string, unknown> | null,
    timeoutMs: number,
  ): Promise<void> {
    const mode = descriptor.sessionMode;
    if (!mode) return;
    const current = (result?.modes as { currentModeId?: unknown } | undefined)?.currentModeId;
    if (current === mode) return;
    await connection.request('session/set_mode', { sessionId, modeId: mode }, timeoutMs);
  }

  const open = (method: 'session/new' | 'session/load' | 'session/resume') =>
    async function openSession(request: {
      params: unknown;
      state: AcpState;
      setup: SessionSetup;
      providerSessionId?: string;
    }): Promise<AcpSession> {
      const requestTimeoutMs = descriptor.requestTimeoutMs ?? request.setup.timeoutMs;
      const { connection } = request.state;
      const declared = request.state.initialize?.agentCapabilities as
        | Readonly<Record<string, unknown>>
        | undefined;
      const sessionCaps = declared?.sessionCapabilities as Record<string, unknown> | undefined;
      if (
        (method === 'session/resume' && !sessionCaps?.resume) ||
        (method === 'session/load' && !declared?.loadSession)
      ) {
        throw new TuttiError('TUTTI_ERR_SESSION_UNSUPPORTED', {
          provider: descriptor.name,
          operation: method === 'session/resume' ? 'resume' : 'load',
        });
      }
      const result = await connection.request<Record<string, unknown> | null>(
        method,
        request.params,
        requestTimeoutMs,
      );
      const sessionId = method === 'session/new' ? result?.sessionId : request.providerSessionId;
      if (typeof sessionId !== 'string' || sessionId === '') {
        throw new TuttiError('TUTTI_ERR_PROVIDER_REQUEST_FAILED', {
          provider: descriptor.name,
          method,
          reason: 'the result has no sessionId',
        });
      }
      await setMode(connection, sessionId, result, requestTimeoutMs);
      const start = starts.get(request.setup);
      starts.delete(request.setup);
      const { home } = descriptor;
      return new AcpSession({
        connection,
        providerSessionId: sessionId,
        declared,
        requestTimeoutMs,
        identity: descriptor.permissions?.identity ?? [],
        bridges: descriptor.permissions?.bridges ?? [],
        ...(descriptor.sessionMode ? { sessionMode: descriptor.sessionMode } : {}),
        ...(home?.writeBack?.length
          ? {
              onClose: () =>
                writeBackFiles(request.setup.files, home, homeEnv(request.setup, start?.pre)).catch(
                  (error: unknown) =>
                    options.logger?.warn(
                      { provider: descriptor.name, files: home.writeBack },
                      `a file the agent replaced in its session home could not be copied back to the user's folder: ${error instanceof Error ? error.message : String(error)}`,
                    ),
                ),
            }
          : {}),
      });
    };

  return Object.freeze({
    name: descriptor.name,
    flags: Object.freeze({ httpMcp: true, listChanged: descriptor.listChanged ?? false }),
    ...(descriptor.permissions
      ? {
          permissions: Object.freeze({
            modes: (['ask', 'allow-connector'] as const).filter(
              (mode) => descriptor.permissions?.modes[mode] !== undefined,
            ),
            toolNames: [...descriptor.permissions.toolNames],
            clearEnv: [...(descriptor.permissions.clearEnv ?? [])],
          }),
        }
      : {}),
    launch: Object.freeze({
      ...(descriptor.command ? { command: descriptor.command } : {}),
      args: descriptor.args ?? [],
      env: descriptor.env ?? {},
    }),
    async handshake(agent: AgentProcess, setup: SessionSetup) {
      const state = await handshakeWith(agent, setup);
      const start = starts.get(setup);
      if (start) start.state = state;
      return {
        declared: state.initialize
          ? ((state.initialize.agentCapabilities ?? {}) as Readonly<Record<string, unknown>>)
          : undefined,
        state,
      };
    },
    probeOf(declared: Readonly<Record<string, unknown>>) {
      const mcp = declared.mcpCapabilities as Record<string, unknown> | undefined;
      return { httpMcp: mcp?.http === true };
    },
    async prelaunch(setup: SessionSetup) {
      const env: Record<string, string> = {};
      const args: string[] = [];
      for (const name of setup.settings) {
        const setting = descriptor.settings?.[name];
        if (!setting) {
          throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN_SETTING', {
            provider: descriptor.name,
            setting: name,
            known: Object.keys(descriptor.settings ?? {}).join(', ') || '(none)',
          });
        }
        Object.assign(env, setting.env);
        args.push(...(setting.args ?? []));
      }
      const start: Start = { pre: { env, args }, startedWith: undefined };
      const { home } = descriptor;
      if (home) {
        // What makes the agent ask is written before it starts; it reads its settings then.
        const mode = setup.session.permissions;
        const asking = mode === 'agent' ? undefined : descriptor.permissions?.modes[mode];
        const homeAt = { ...setup.launch.env, ...env };
        env[home.env] = await buildAgentHome(
          setup.files,
          home,
          skills,
          guidance,
          homeAt,
          Object.keys(asking?.files ?? {}),
        );
        if (asking) {
          const url = (await setup.preview?.())?.url;
          await writePermissionFiles(setup.files, home, asking, homeAt, {
            cwd: setup.cwd,
            ...(url ? { connectorUrl: url } : {}),
          });
        }
        // An agent that reads its instructions only at start gets what a bound session would.
        const preview = startRead ? await setup.preview?.() : undefined;
        if (startRead && preview?.guidance) {
          await writeGuidance(
            setup.files,
            startRead,
            preview.guidance,
            home,
            homeEnv(setup, start.pre),
          );
          start.startedWith = preview.guidance;
        }
      }
      starts.set(setup, start);
      return { env, args };
    },
    async materialize(_params: AcpSessionParams, runtime: PreparedRuntime, setup: SessionSetup) {
      const bound = runtime.mcpServers.length > 0;
      const start = starts.get(setup);
      const { home } = descriptor;
      if (startRead && home) {
        const wanted = bound ? runtime.guidance : undefined;
        if (wanted !== start?.startedWith) {
          const env = homeEnv(setup, start?.pre);
          if (wanted) await writeGuidance(setup.files, startRead, wanted, home, env);
          else await resetGuidance(setup.files, startRead, home, env);
          if (start) start.startedWith = wanted;
          if (start?.state) await restart(start, setup);
        }
      }
      // A plain session gets no connector skills and no guidance.
      if (!bound) return undefined;
      if (skills.via === 'home' && home) {
        await linkConnectorSkills(setup.files, home, skills, runtime.skillRoots);
      } else if (skills.via === 'claude-plugin' && runtime.skillRoots.length > 0) {
        await setup.files.ensure();
        await createSkillPlugin(runtime.skillRoots, { dir: join(setup.files.dir, PLUGIN_DIR) });
      }
      if (
        runtime.guidance &&
        home &&
        !startRead &&
        (guidance.via === 'home-file' || guidance.via === 'config-file')
      ) {
        await writeGuidance(
          setup.files,
          guidance,
          runtime.guidance,
          home,
          homeEnv(setup, start?.pre),
        );
      }
      return undefined;
    },
    bindingsIn: (params: AcpSessionParams) => bindingsInParams(params),
    newSession: open('session/new'),
    loadSession: open('session/load'),
    resumeSession: open('session/resume'),
  });
}

/** The descriptors installed per hook table, by name: taps read the current one. */
const installed = new WeakMap<object, Map<string, { current: AcpAgentDescriptor }>>();

/**
 * Registers the provider of `descriptor` on `host` and taps its projection and refresh
 * hooks; installing a descriptor of a name this plugin installed before replaces it (the
 * next session uses it; the taps are not doubled).
 */
export function installAcpAgent(host: PluginHost, descriptor: AcpAgentDescriptor): void {
  let byName = installed.get(host.hooks);
  if (!byName) {
    byName = new Map();
    installed.set(host.hooks, byName);
  }
  const existing = byName.get(descriptor.name);
  if (existing) {
    existing.current = descriptor;
    host.registerProvider(createAcpProvider(descriptor, { logger: host.logger }), {
      replace: true,
    });
    return;
  }
  const holder = { current: descriptor };
  byName.set(descriptor.name, holder);
  // Every ACP agent's hooks carry ACP session params, whatever the descriptor's name.
  const hooks = providerHooks(host.hooks, descriptor.name as 'acp');
  const project = async (
    _params: AcpSessionParams,
    runtime: PreparedRuntime,
    session: SessionHookContext,
  ) => withDeliveries(sessionParams(runtime, session), holder.current, runtime, session);
  hooks.sessionNew.tapPromise({ name: PLUGIN_NAME, stage: PROJECTION_STAGE }, project);
  hooks.sessionLoad.tapPromise({ name: PLUGIN_NAME, stage: PROJECTION_STAGE }, project);
  hooks.sessionResume.tapPromise({ name: PLUGIN_NAME, stage: PROJECTION_STAGE }, project);
  hooks.toolsListChanged.tapPromise(
    { name: PLUGIN_NAME, stage: REFRESH_STAGES.nativeReload },
    async (refresh) => {
      const operation = reloadOperation(refresh.session.declared);
      if (!operation || !refresh.handle.reload || holder.current.liveReload === false) {
        return undefined;
      }
      const { params } = await refresh.reproject(operation);
      try {
        return (await refresh.handle.reload(params)) ? REFRESH_STRATEGIES.nativeReload : undefined;
      } catch (error) {
        // codex-acp cannot resume, nor Gemini CLI load, a session that has had no turn yet:
        // the next strategy (a resume or restart by whoever drives the agent) takes over.
        host.logger?.warn(
          { provider: descriptor.name, session: refresh.session.agentSessionId, operation },
          `the agent could not take the new tool list through session/${operation}: ${error instanceof Error ? error.message : String(error)}`,
        );
        return undefined;
      }
    },
  );
  host.registerProvider(createAcpProvider(descriptor, { logger: host.logger }));
}
