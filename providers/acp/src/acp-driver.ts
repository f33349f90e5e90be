/**
 * The driver of one ACP session, holding its state between the host's steps: prelaunch
 * writes the agent's home (what makes it ask, the instructions an agent reads only at
 * start); the handshake (`initialize`) on the spawned agent says what it declares;
 * materialize adds the connector skills and guidance of a bound session (and asks for a
 * respawn when the instructions the agent read at start are no longer the session's); open
 * sends `session/new`, `session/load` or `session/resume` and sets the descriptor's mode.
 */
import type { InitializeResponse } from '@agentclientprotocol/sdk';
import {
  type AgentAuthMethod,
  type AgentProcess,
  createSkillPlugin,
  type LiveRefresh,
  type Materialized,
  type OpenRequest,
  openAgentChannel,
  type PreparedRuntime,
  SESSION_OPERATIONS,
  type SessionDriver,
  type SessionSetup,
  TuttiError,
} from '@tutti/core';
import { join } from 'node:path';
import type { AcpConnection } from './acp-connection.js';
import { PLUGIN_DIR } from './acp-deliveries.js';
import { authMethodsOf } from './auth-methods.js';
import {
  type AcpEngineLogger,
  AcpSession,
  declaredReopens,
  reloadOperation,
} from './acp-session.js';
import {
  buildAgentHome,
  linkConnectorSkills,
  unlinkConnectorSkills,
  resetGuidance,
  writeBackFiles,
  writeGuidance,
} from './agent-home.js';
import type { AcpAgentDescriptor } from './descriptors.js';
import { writePermissionFiles } from './permission-files.js';
import type { AcpSessionParams } from './project-params.js';

/**
 * The connection module, with the ACP SDK, loaded by the first ACP session rather than with
 * the plugin: the SDK costs about 0.25 s of CPU, and most daemon starts run no ACP agent.
 */
const loadConnection = () => import('./acp-connection.js');

/** Long enough for a cold opencode on a loaded 2-core machine (measured up to ~20 s). */
const DEFAULT_INITIALIZE_TIMEOUT_MS = 45_000;

export class AcpDriver implements SessionDriver<AcpSessionParams> {
  readonly #descriptor: AcpAgentDescriptor;
  readonly #setup: SessionSetup;
  readonly #logger: AcpEngineLogger | undefined;
  /** What prelaunch added to the agent's start (a respawn starts it the same way). */
  #pre: Materialized = {};
  /** The guidance the agent's start-read instructions file holds (undefined: none). */
  #startedWith: string | undefined;
  /** The connector skills linked before a start-reading agent started (undefined: none). */
  #skillsAtStart: string[] | undefined;
  #connection: AcpConnection | undefined;
  #initialize: InitializeResponse | undefined;

  constructor(descriptor: AcpAgentDescriptor, setup: SessionSetup, logger?: AcpEngineLogger) {
    this.#descriptor = descriptor;
    this.#setup = setup;
    this.#logger = logger;
  }

  /** The settings' env and args; the home with what makes the agent ask. */
  async prelaunch(): Promise<Materialized> {
    const descriptor = this.#descriptor;
    const setup = this.#setup;
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
    this.#pre = { env, args };
    const { home } = descriptor;
    if (home) {
      // What makes the agent ask is written before it starts; it reads its settings then.
      const mode = setup.session.permissions;
      const asking = mode === 'agent' ? undefined : descriptor.permissions?.modes[mode];
      const homeAt = { ...setup.launch.env, ...env };
      env[home.env] = await buildAgentHome(
        setup.files,
        home,
        descriptor.skills ?? { via: 'none' },
        descriptor.guidance ?? { via: 'none' },
        homeAt,
        Object.keys(asking?.files ?? {}),
        this.#logger,
      );
      if (asking) {
        const url = (await setup.preview?.())?.url;
        await writePermissionFiles(setup.files, home, asking, homeAt, {
          cwd: setup.cwd,
          ...(url ? { connectorUrl: url } : {}),
        });
      }
      // An agent that reads its instructions only at start gets what a bound session would.
      const startRead = this.#startRead();
      const preview = startRead ? await setup.preview?.() : undefined;
      if (startRead && preview?.guidance) {
        await writeGuidance(setup.files, startRead, preview.guidance, home, this.#homeEnv());
        this.#startedWith = preview.guidance;
      }
      // An agent that reads its skills only at start gets what a bound session would.
      const skills = descriptor.skills;
      if (skills?.via === 'home' && skills.readAt === 'start') {
        const roots = (await setup.preview?.())?.skillRoots;
        if (roots) {
          const linked = await linkConnectorSkills(setup.files, home, skills, roots, this.#logger);
          this.#skillsAtStart = linked;
        }
      }
    }
    return { env, args };
  }

  /** Connects to the spawned agent and asks `initialize`; its `agentCapabilities`, if it answered. */
  async handshake(agent: AgentProcess): Promise<Readonly<Record<string, unknown>> | undefined> {
    const descriptor = this.#descriptor;
    this.#connection?.close();
    const acp = await loadConnection();
    const connection = acp.connectAcp(descriptor.name, openAgentChannel(agent, descriptor.limits));
    // Until a turn runs, nobody can answer a permission request: it is cancelled, not an error.
    connection.handle('session/request_permission', async () => ({
      outcome: { outcome: 'cancelled' },
    }));
    this.#connection = connection;
    const timeout = descriptor.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
    this.#initialize = await acp.probeAgent(connection, Math.min(timeout, this.#setup.timeoutMs));
    return this.#declared();
  }

  /** The bound session's skills and guidance; a respawn when the start-read instructions changed. */
  async materialize(
    _params: AcpSessionParams,
    runtime: PreparedRuntime,
  ): Promise<Materialized | undefined> {
    const descriptor = this.#descriptor;
    const { files } = this.#setup;
    const bound = runtime.mcpServers.length > 0;
    const { home } = descriptor;
    const startRead = this.#startRead();
    let respawn = false;
    if (startRead && home) {
      const wanted = bound ? runtime.guidance : undefined;
      if (wanted !== this.#startedWith) {
        if (wanted) await writeGuidance(files, startRead, wanted, home, this.#homeEnv());
        else await resetGuidance(files, startRead, home, this.#homeEnv());
        this.#startedWith = wanted;
        respawn = this.#connection !== undefined;
      }
    }
    const skills = descriptor.skills ?? { via: 'none' };
    // Skills linked before the start of a session that turned out plain are taken back.
    if (!bound && skills.via === 'home' && home && this.#skillsAtStart?.length) {
      await unlinkConnectorSkills(files, home, skills, this.#skillsAtStart);
      this.#skillsAtStart = undefined;
      respawn = this.#connection !== undefined;
    }
    // A plain session gets no connector skills and no guidance.
    if (bound) {
      const guidance = descriptor.guidance ?? { via: 'none' };
      if (skills.via === 'home' && home) {
        const linked = await linkConnectorSkills(
          files,
          home,
          skills,
          runtime.skillRoots,
          this.#logger,
        );
        // A start-reading agent sees a skill only if it was there when it started.
        if (skills.readAt === 'start' && linked.length > 0)
          respawn = this.#connection !== undefined;
      } else if (skills.via === 'claude-plugin' && runtime.skillRoots.length > 0) {
        await files.ensure();
        await createSkillPlugin(runtime.skillRoots, { dir: join(files.dir, PLUGIN_DIR) });
      }
      const homeFile = guidance.via === 'home-file' || guidance.via === 'config-file';
      if (runtime.guidance && home && !startRead && homeFile) {
        await writeGuidance(files, guidance, runtime.guidance, home, this.#homeEnv());
      }
    }
    return respawn ? { respawn } : undefined;
  }

  /** Sends the session request of the operation and sets the descriptor's session mode. */
  async open(request: OpenRequest<AcpSessionParams>): Promise<AcpSession> {
    const descriptor = this.#descriptor;
    const setup = this.#setup;
    const { operation } = request;
    const { wire } = SESSION_OPERATIONS[operation];
    const connection = this.#connection;
    const declared = this.#declared();
    if (!connection) throw new Error('the agent was not connected before its session opened');
    if (operation !== 'new' && !declaredReopens(declared).includes(operation)) {
      throw new TuttiError('TUTTI_ERR_SESSION_UNSUPPORTED', {
        provider: descriptor.name,
        operation,
      });
    }
    const requestTimeoutMs = descriptor.requestTimeoutMs ?? setup.timeoutMs;
    const result = await connection.request<Record<string, unknown> | null>(
      wire,
      request.params,
      requestTimeoutMs,
    );
    const sessionId = operation === 'new' ? result?.sessionId : request.providerSessionId;
    if (typeof sessionId !== 'string' || sessionId === '') {
      throw new TuttiError('TUTTI_ERR_PROVIDER_REQUEST_FAILED', {
        provider: descriptor.name,
        method: wire,
        reason: 'the result has no sessionId',
      });
    }
    const mode = descriptor.sessionMode;
    const current = (result?.modes as { currentModeId?: unknown } | undefined)?.currentModeId;
    if (mode && current !== mode) {
      await connection.request('session/set_mode', { sessionId, modeId: mode }, requestTimeoutMs);
    }
    const { home } = descriptor;
    return new AcpSession({
      provider: descriptor.name,
      agentSessionId: setup.session.agentSessionId,
      connection,
      providerSessionId: sessionId,
      declared,
      requestTimeoutMs,
      liveReload: descriptor.liveReload !== false,
      identity: descriptor.permissions?.identity ?? [],
      bridges: descriptor.permissions?.bridges ?? [],
      logger: this.#logger,
      ...(mode ? { sessionMode: mode } : {}),
      ...(home?.writeBack?.length
        ? {
            onClose: () =>
              writeBackFiles(setup.files, home, this.#homeEnv()).catch((error: unknown) =>
                this.#logger?.warn(
                  { provider: descriptor.name, files: home.writeBack },
                  `a file the agent replaced in its session home could not be copied back to the user's folder: ${error instanceof Error ? error.message : String(error)}`,
                ),
              ),
          }
        : {}),
    });
  }

  /** A host-driven session's agent takes a new binding live as its live session would. */
  hosted(declared: Readonly<Record<string, unknown>> | undefined): LiveRefresh<AcpSessionParams> {
    const operation = reloadOperation(declared, this.#descriptor.liveReload !== false);
    if (!operation) return {};
    return {
      async reload(reproject) {
        await reproject(operation);
        return true;
      },
    };
  }

  /** How the agent says a person signs in (its `initialize` `authMethods`), bounded. */
  authMethods(): readonly AgentAuthMethod[] {
    return authMethodsOf(this.#initialize?.authMethods);
  }

  #declared(): Readonly<Record<string, unknown>> | undefined {
    const initialize = this.#initialize;
    return initialize
      ? ((initialize.agentCapabilities ?? {}) as Readonly<Record<string, unknown>>)
      : undefined;
  }

  /** The descriptor's instructions file when the agent reads it only at its start. */
  #startRead() {
    const guidance = this.#descriptor.guidance;
    return guidance?.via === 'home-file' && guidance.readAt === 'start' ? guidance : undefined;
  }

  #homeEnv(): Record<string, string> {
    return { ...this.#setup.launch.env, ...this.#pre.env };
  }
}
