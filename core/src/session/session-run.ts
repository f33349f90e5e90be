/**
 * One run of a session: what one start of it makes and its end undoes. The processes
 * started for it, the connector state its prepare left, what its agent declared, how long
 * each start step took, how its agent ended, and the secrets it masked. A session that
 * starts again (a restore's next attempt, a restart) gets a new run.
 */
import type { PreparedRuntime } from '../contracts/index.js';
import type { AgentProcess } from '../process/agent-process.js';
import type { HostParts } from './host-parts.js';
import type { PreparedProjection, SessionExit, StartSessionRequest } from './host-types.js';
import {
  openDaemonSession,
  prepareHostSession,
  type Starting,
  withinStartTimeout,
} from './open-session.js';
import type {
  AgentProvider,
  LiveRefresh,
  LiveSession,
  ResolvedLaunch,
  SessionSetup,
} from './provider-contract.js';
import type { SessionFiles } from './session-files.js';
import { createSetup, exitOf, SessionProcesses, sessionScope } from './session-setup.js';
import type {
  AgentAuthMethod,
  AgentProbe,
  SessionContext,
  SessionOperation,
} from './session-types.js';

/** How long a provider's protocol-level close may take before the processes are stopped. */
const CLOSE_TIMEOUT_MS = 3_000;

/** Who the run is for. */
export interface RunOwner {
  readonly context: SessionContext;
  readonly cwd: string;
  readonly files: SessionFiles;
  /** Environment the preparer starts from (masked in every error while the run lives). */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Longest time one request to the agent may take. */
  readonly timeoutMs: number;
}

/** A launch before the provider's defaults fill it. */
export interface LaunchAsk {
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export class SessionRun {
  readonly processes = new SessionProcesses();
  /** How long each step of the start took (ms), in order. */
  readonly steps: Record<string, number> = {};
  readonly #parts: HostParts;
  readonly #owner: RunOwner;
  readonly #forget: (() => void)[] = [];
  #connector: 'bound' | 'plain' | 'none' = 'none';
  #declared: Readonly<Record<string, unknown>> | undefined;
  /** How the agent says a person signs in to it (from its handshake). */
  authMethods: readonly AgentAuthMethod[] = [];
  #exit: SessionExit | undefined;

  constructor(parts: HostParts, owner: RunOwner) {
    this.#parts = parts;
    this.#owner = owner;
    this.#forget.push(parts.options.redactor?.addEnv(owner.baseEnv) ?? (() => {}));
  }

  /** `bound`: the agent got the connector binding; `plain`: it did not; `none`: not prepared. */
  get connector(): 'bound' | 'plain' | 'none' {
    return this.#connector;
  }

  /** What the agent declared in its handshake, if it has one. */
  get declared(): Readonly<Record<string, unknown>> | undefined {
    return this.#declared;
  }

  /** How the run's agent ended, once it ended on its own. */
  get exit(): SessionExit | undefined {
    return this.#exit;
  }

  declare(declared: Readonly<Record<string, unknown>>): void {
    this.#declared = declared;
  }

  /** Records how `agent` ended. */
  ended(agent: AgentProcess): SessionExit | undefined {
    this.#exit = exitOf(agent) ?? this.#exit;
    return this.#exit;
  }

  /** Prepares the runtime for `probe` (a fresh token, which revokes the old one). */
  async prepare(probe: AgentProbe | undefined): Promise<PreparedRuntime> {
    const owner = this.#owner;
    const runtime = await this.#parts.preparer.prepare({
      session: owner.context,
      cwd: owner.cwd,
      env: owner.baseEnv,
      probe,
    });
    this.#connector = runtime.mcpServers.length > 0 ? 'bound' : 'plain';
    const headers = runtime.mcpServers.flatMap((binding) => Object.values(binding.headers));
    this.#forget.push(this.#parts.options.redactor?.add(...headers) ?? (() => {}));
    return runtime;
  }

  /**
   * Opens the session through `operation` for a daemon that drives its agent, within the
   * start timeout; the caller tears the run down when it fails.
   */
  open(
    session: Starting,
    provider: AgentProvider,
    request: StartSessionRequest,
    operation: SessionOperation,
    options: { readonly providerSessionId?: string; readonly timeoutMs?: number },
    onAgentExit: (agent: AgentProcess) => void,
  ): Promise<LiveSession> {
    const { agentSessionId } = this.#owner.context;
    return withinStartTimeout(
      provider.name,
      agentSessionId,
      () => this.processes.agent,
      options.timeoutMs ?? this.#owner.timeoutMs,
      async () => {
        const launch = {
          env: { ...this.#owner.baseEnv, ...provider.launch?.env, ...request.launch?.env },
          ...(request.launch?.command ? { command: request.launch.command } : {}),
          ...(request.launch?.args ? { args: request.launch.args } : {}),
        };
        const setup = await this.#setup(provider, launch, request.settings, onAgentExit);
        return sessionScope.run(agentSessionId, () =>
          openDaemonSession(
            session,
            provider,
            provider.driver(setup),
            setup,
            operation,
            options.providerSessionId,
            this.steps,
          ),
        );
      },
    );
  }

  /** Prepares, projects and materializes the session for a host that spawns the agent itself. */
  async prepareForHost(
    session: Starting,
    provider: AgentProvider,
    declared: Readonly<Record<string, unknown>> | undefined,
    settings: readonly string[] | undefined,
  ): Promise<{ runtime: PreparedRuntime; projection: PreparedProjection; hosted: LiveRefresh }> {
    const setup = await this.#setup(provider, { env: this.#owner.baseEnv }, settings, () => {});
    return sessionScope.run(this.#owner.context.agentSessionId, () =>
      prepareHostSession(session, provider, provider.driver(setup), declared),
    );
  }

  /** The setup `provider` gets: `launch` under the provider's defaults. */
  async #setup(
    provider: AgentProvider,
    launch: LaunchAsk,
    settings: readonly string[] = [],
    onAgentExit: (agent: AgentProcess) => void,
  ): Promise<SessionSetup> {
    const { context } = this.#owner;
    const env = await this.#parts.preparer.launchEnv(launch.env);
    if (context.permissions !== 'agent') {
      for (const name of provider.permissions?.clearEnv ?? []) delete env[name];
    }
    const resolved: ResolvedLaunch = Object.freeze({
      command: launch.command ?? provider.launch?.command,
      args: Object.freeze([...(launch.args ?? provider.launch?.args ?? [])]),
      env: Object.freeze(env),
    });
    return createSetup({
      session: context,
      cwd: this.#owner.cwd,
      files: this.#owner.files,
      launch: resolved,
      timeoutMs: this.#owner.timeoutMs,
      settings,
      processes: this.processes,
      supervisor: this.#parts.options.processes,
      redactor: this.#parts.options.redactor,
      onAgentExit,
      preview: () => this.#parts.preparer.preview(context),
    });
  }

  /**
   * Ends the run: the provider's protocol-level close of `handle` (bounded), every process
   * stopped, the folder removed unless it is kept for a restart, the token revoked, the
   * secrets it masked forgotten.
   */
  async teardown(handle: LiveSession | undefined, keepFiles = false): Promise<void> {
    const closing = handle?.close?.();
    if (closing) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      });
      await Promise.race([closing.catch(() => {}), timeout]);
      clearTimeout(timer);
    }
    await this.processes.stopAll();
    if (!keepFiles) await this.#owner.files.remove().catch(() => {});
    const { workspaceId, agentSessionId } = this.#owner.context;
    try {
      await this.#parts.options.tokens.revokeSession(workspaceId, agentSessionId);
    } catch {
      // A token service that cannot revoke has nothing left to revoke for this session.
    }
    this.forgetSecrets();
  }

  /** Unmasks what the run masked (its env and tokens). */
  forgetSecrets(): void {
    for (const forget of this.#forget.splice(0)) forget();
  }
}
