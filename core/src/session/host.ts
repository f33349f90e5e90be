/**
 * AgentSessionHost: drives every agent session's life cycle, once, for every provider:
 * spawn (core's one agent spawn), handshake, prepare (one token per session), projection
 * hooks, binding check, open, refresh when the visible tool list changes, and close (the
 * processes stopped, the session folder removed, the token revoked). Host-driven sessions
 * stop after the projection and hand it to the host.
 */
import type { PreparedRuntime, ProviderCapabilities } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import type { AgentProcess } from '../process/agent-process.js';
import { agentInheritedEnv } from '../process/inherited-env.js';
import { createSessionHooks, type SessionHooks } from './hooks.js';
import type {
  AgentSessionHostOptions,
  AgentSessionInfo,
  PrepareOnlyRequest,
  PreparedSession,
  PrepareSessionRequest,
  RefreshRecord,
  StartSessionRequest,
  ToolsListedRecord,
} from './host-types.js';
import {
  type OpenServices,
  openDaemonSession,
  prepareHostSession,
  startError,
  withinStartTimeout,
} from './open-session.js';
import { stderrSentence } from './agent-channel.js';
import { DefaultPreparer } from './preparer.js';
import type { StoredSession } from './session-records.js';
import type { AgentProvider, LiveSession, ResolvedLaunch } from './provider-contract.js';
import { ProviderTable } from './provider-table.js';
import { tapStandardRefreshStrategies } from './refresh-strategies.js';
import {
  createSetup,
  entryInfo,
  exitOf,
  type SessionEntry,
  sessionScope,
} from './session-entry.js';
import { type RefreshServices, refreshSession, relisted } from './session-refresh.js';
import {
  type CameBackAs,
  comeBack,
  type RestoreResult,
  type RestoreServices,
  restoreAll,
  restoreRequest,
  sessionRecordOf,
} from './session-restore.js';
import { SessionTable } from './session-table.js';
import { dropSession, stopSession } from './session-teardown.js';
import type { AgentProbe, SessionOperation } from './session-types.js';
import { TurnRunner } from './turn-runner.js';
import type { PermissionOutcome, PromptBlock, TurnEvent } from './turn-types.js';

const DEFAULT_AGENT_TIMEOUT_MS = 60_000;
const DEFAULT_PERMISSION_TIMEOUT_MS = 5 * 60_000;
/** Every recorded session is back or `needs-restart` within this long of the host's start. */
const RESTORE_WITHIN_MS = 60_000;

/** The session host the daemon composes; also the `host` a plugin's `apply` receives. */
export class AgentSessionHost {
  /** The frozen hook table; see `docs/hooks.md`. */
  readonly hooks: SessionHooks;
  readonly #options: AgentSessionHostOptions;
  readonly #preparer: DefaultPreparer;
  readonly #providers: ProviderTable;
  readonly #sessions: SessionTable;
  readonly #pending = new Set<Promise<unknown>>();
  readonly #unsubscribe: (() => void) | undefined;
  #restoring = 0;
  readonly #inherited: Readonly<Record<string, string>>;
  readonly #open: OpenServices;
  readonly #refreshServices: RefreshServices;
  readonly #restoreWithinMs: number;
  readonly #restoreDeadline: number;

  constructor(options: AgentSessionHostOptions) {
    this.#options = options;
    this.#restoreWithinMs = options.restoreWithinMs ?? RESTORE_WITHIN_MS;
    this.#restoreDeadline = Date.now() + this.#restoreWithinMs;
    this.hooks = options.hooks ?? createSessionHooks();
    this.#providers = new ProviderTable(this.hooks);
    this.#inherited = options.inheritedEnv ?? agentInheritedEnv();
    this.#sessions = new SessionTable({
      maxSessions: options.maxSessions,
      sessionsDir: options.sessionsDir,
      redactor: options.redactor,
    });
    this.#preparer = new DefaultPreparer({
      hooks: this.hooks,
      connector: options.connector,
      tokens: options.tokens,
      ...(options.guidance ? { guidance: options.guidance } : {}),
      ...(options.onPlain ? { onPlain: options.onPlain } : {}),
      ...(this.#inherited.PATH !== undefined ? { defaultPath: this.#inherited.PATH } : {}),
    });
    this.#open = { hooks: this.hooks, prepare: (entry, probe) => this.#prepare(entry, probe) };
    this.#refreshServices = {
      hooks: this.hooks,
      provider: (name) => this.#providers.get(name),
      knownProviders: () => this.#providers.known(),
      prepare: (entry, probe) => this.#prepare(entry, probe),
      listChangedDelivered: options.listChangedDelivered ?? false,
      events: options.events,
      onProblem: options.onProblem,
    };
    this.#unsubscribe = options.registry?.onListChanged((snapshot) => {
      this.#track(this.refreshSessions(snapshot.version));
    });
  }

  /** Adds a provider; a second provider of the same name is refused unless `replace` is set. */
  registerProvider(provider: AgentProvider, options: { readonly replace?: boolean } = {}): void {
    this.#providers.register(provider, options);
  }

  /** Names and capabilities of the registered providers, derived from what each implements. */
  listProviders(): { name: string; capabilities: ProviderCapabilities }[] {
    return this.#providers.list();
  }

  /** Starts a new daemon-driven session. */
  createSession(request: StartSessionRequest): Promise<AgentSessionInfo> {
    return this.#start(request, 'new', undefined);
  }

  /** Loads an earlier session of the agent with a fresh binding. */
  loadSession(request: StartSessionRequest, providerSessionId: string): Promise<AgentSessionInfo> {
    return this.#start(request, 'load', providerSessionId);
  }

  /** Resumes an earlier session of the agent with a fresh binding. */
  resumeSession(
    request: StartSessionRequest,
    providerSessionId: string,
  ): Promise<AgentSessionInfo> {
    return this.#start(request, 'resume', providerSessionId);
  }

  /**
   * Prepares a session of `provider` for a host that spawns the agent itself: the runtime
   * and the provider's projection. Asking again for the same session re-issues its token.
   */
  async prepareSession(request: PrepareSessionRequest): Promise<PreparedSession> {
    const provider = this.#providers.require(request.provider);
    const entry = this.#sessions.addOrReuse(request, provider.name, provider.flags);
    try {
      const setup = await this.#setup(
        entry,
        provider,
        { env: request.env ?? {} },
        request.settings,
      );
      const { runtime, projection } = await sessionScope.run(entry.session.agentSessionId, () =>
        prepareHostSession(this.#open, provider, entry, setup, request.agentCapabilities),
      );
      entry.projection = projection;
      entry.status = 'prepared';
      entry.handle = this.#hostHandle(entry);
      this.#publishStarted(entry);
      return { agentSessionId: entry.session.agentSessionId, runtime, projection };
    } catch (error) {
      await this.#drop(entry);
      throw startError(provider, entry, error);
    }
  }

  /** Prepares the provider-neutral runtime for an agent the caller spawns itself. */
  async prepareOnly(request: PrepareOnlyRequest): Promise<PreparedSession> {
    tapStandardRefreshStrategies(this.hooks, request.provider);
    const entry = this.#sessions.addOrReuse(request, request.provider, request.flags);
    try {
      const runtime = await this.#prepare(entry, { httpMcp: request.flags.httpMcp });
      entry.status = 'prepared';
      entry.handle = this.#hostHandle(entry);
      this.#publishStarted(entry);
      return { agentSessionId: entry.session.agentSessionId, runtime };
    } catch (error) {
      await this.#drop(entry);
      throw error;
    }
  }

  /** The newest projection of a host-driven session (new params after a reload). */
  projectionOf(agentSessionId: string): PreparedSession['projection'] {
    const entry = this.#sessions.entry(agentSessionId);
    if (entry.mode !== 'host' || !entry.projection) {
      throw new TuttiError('TUTTI_ERR_SESSION_NOT_HOST_DRIVEN', { session: agentSessionId });
    }
    return entry.projection;
  }

  /**
   * Records the agent's own id of a host-driven session (the host learns it when it opens
   * the session), so projections for a reload or resume name it.
   */
  identifySession(agentSessionId: string, providerSessionId: string): AgentSessionInfo {
    const entry = this.#sessions.entry(agentSessionId);
    if (entry.mode !== 'host') {
      throw new TuttiError('TUTTI_ERR_SESSION_NOT_HOST_DRIVEN', { session: agentSessionId });
    }
    entry.handle = this.#hostHandle(entry, providerSessionId);
    return entryInfo(entry);
  }

  /** Every session the host holds, with its status. */
  listSessions(): AgentSessionInfo[] {
    return this.#sessions.values().map(entryInfo);
  }

  /** The live handle of a daemon-driven session (for turns). */
  handleOf(agentSessionId: string): LiveSession {
    const entry = this.#sessions.entry(agentSessionId);
    if (!entry.handle || entry.mode !== 'daemon' || entry.status === 'exited') {
      throw new TuttiError('TUTTI_ERR_SESSION_NOT_LIVE', {
        session: agentSessionId,
        status: entry.status,
      });
    }
    return entry.handle;
  }

  /**
   * Starts a turn of a daemon-driven session: `listener` gets each event, the last one
   * `end`. Resolves once the turn runs (its `done` resolves after `end`); rejects before
   * any event when the session cannot take a turn now (one at a time).
   */
  async startTurn(
    agentSessionId: string,
    prompt: readonly PromptBlock[],
    listener: (event: TurnEvent) => void,
  ): Promise<{ done: Promise<void> }> {
    const handle = this.handleOf(agentSessionId);
    const entry = this.#sessions.entry(agentSessionId);
    if (!handle.turn) {
      throw new TuttiError('TUTTI_ERR_TURN_UNSUPPORTED', { provider: entry.session.provider });
    }
    if (entry.turn?.running || entry.turnStarting) {
      throw new TuttiError('TUTTI_ERR_TURN_BUSY', { session: agentSessionId });
    }
    // A refresh the session owes lands before the turn, so the turn sees the tools it brings.
    entry.turnStarting = true;
    try {
      await entry.refreshing.catch(() => {});
      await relisted(entry);
    } finally {
      entry.turnStarting = false;
    }
    if (entry.status === 'exited') {
      throw new TuttiError('TUTTI_ERR_SESSION_NOT_LIVE', {
        session: agentSessionId,
        status: entry.status,
      });
    }
    const forms = this.#providers.get(entry.session.provider)?.permissions?.toolNames ?? [];
    const turn = sessionScope.run(
      agentSessionId,
      () =>
        new TurnRunner(handle, prompt, listener, {
          permissions: entry.session.permissions,
          permissionTimeoutMs: this.#options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
          provider: entry.session.provider,
          proof: {
            forms,
            served: (tool) => entry.servedTools?.some((served) => served.name === tool) ?? false,
          },
        }),
    );
    entry.turn = turn;
    if (!entry.turns) {
      entry.turns = true;
      if (entry.record) {
        entry.record = { ...entry.record, turns: true };
        // A session with a turn comes back with its history after a restart, not afresh.
        await this.#options.records?.update(entry.record).catch((error: unknown) => {
          this.#options.onProblem?.(
            entry.session,
            `the session's first turn could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
          );
        });
      }
    }
    return { done: turn.done };
  }

  /** Cancels the running turn of a session; false when none runs. */
  cancelTurn(agentSessionId: string): boolean {
    return this.#sessions.entry(agentSessionId).turn?.cancel() ?? false;
  }

  /** Answers a permission request of the session's running turn. */
  answerPermission(agentSessionId: string, requestId: string, outcome: PermissionOutcome): void {
    const entry = this.#sessions.entry(agentSessionId);
    if (!entry.turn?.answer(requestId, outcome)) {
      throw new TuttiError('TUTTI_ERR_TURN_UNKNOWN_PERMISSION', {
        session: agentSessionId,
        request: requestId,
      });
    }
  }

  /**
   * Records a `tools/list` served to the session's agent, with the tools it was served
   * (unknown sessions are ignored).
   */
  noteToolsListed(
    agentSessionId: string,
    listed: ToolsListedRecord,
    tools: readonly { readonly name: string }[] = [],
  ): void {
    const entry = this.#sessions.get(agentSessionId);
    if (!entry) return;
    entry.toolsListed = Object.freeze({ ...listed });
    entry.servedTools = tools;
  }

  /** Ends a session: closes the agent, revokes its token, runs `sessionClose`. */
  async closeSession(agentSessionId: string): Promise<void> {
    const entry = this.#sessions.entry(agentSessionId);
    this.#sessions.delete(agentSessionId);
    await this.#drop(entry);
    await this.#options.records?.remove(agentSessionId).catch(() => {});
    this.#options.events?.publish({
      type: 'session.ended',
      session: agentSessionId,
      provider: entry.session.provider,
      reason: 'closed',
    });
    await this.hooks.sessionClose.promise(entry.session);
  }

  /**
   * Ends a session whose code let an error escape (the daemon's last line of defence): it
   * is marked exited with the reason, its processes are stopped and its token revoked.
   */
  async failSession(agentSessionId: string, error: unknown): Promise<boolean> {
    const entry = this.#sessions.get(agentSessionId);
    if (!entry) return false;
    const reason = `an internal error ended it: ${error instanceof Error ? error.message : String(error)}`;
    await this.#end(entry, reason);
    return true;
  }

  /** Runs the refresh chain of every live bound session; resolves with what each recorded. */
  async refreshSessions(version: number): Promise<Map<string, RefreshRecord>> {
    const live = this.#sessions
      .values()
      .filter(
        (entry) =>
          entry.connector === 'bound' && (entry.status === 'ready' || entry.status === 'prepared'),
      );
    const records = await Promise.all(
      live.map((entry) => refreshSession(this.#refreshServices, entry, version)),
    );
    return new Map(live.map((entry, index) => [entry.session.agentSessionId, records[index]!]));
  }

  /** Resolves when every refresh started by a registry change has settled. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Stops listening to the registry and closes every session. */
  async close(): Promise<void> {
    this.#unsubscribe?.();
    await Promise.allSettled(this.#sessions.ids().map((id) => this.closeSession(id)));
    await this.settled();
  }

  async #start(
    request: StartSessionRequest,
    operation: SessionOperation,
    providerSessionId: string | undefined,
    startedAt?: string,
    timeoutMs = this.#agentTimeoutMs(),
    hadTurns = false,
  ): Promise<AgentSessionInfo> {
    const provider = this.#providers.require(request.provider);
    const supported =
      operation === 'new' ||
      (operation === 'load' ? provider.loadSession : provider.resumeSession) !== undefined;
    if (!supported) {
      throw new TuttiError('TUTTI_ERR_SESSION_UNSUPPORTED', { provider: provider.name, operation });
    }
    const mode = request.permissions ?? 'ask';
    if (mode !== 'agent' && !provider.permissions?.modes.includes(mode)) {
      throw new TuttiError('TUTTI_ERR_SESSION_PERMISSIONS_UNSUPPORTED', {
        provider: provider.name,
        mode,
      });
    }
    const baseEnv = { ...this.#inherited, ...request.env };
    const entry = this.#sessions.add(
      request,
      provider.name,
      provider.flags,
      'daemon',
      baseEnv,
      operation,
    );
    entry.turns = hadTurns;
    try {
      const setup = await this.#setup(
        entry,
        provider,
        {
          env: { ...baseEnv, ...provider.launch?.env, ...request.launch?.env },
          ...(request.launch?.command ? { command: request.launch.command } : {}),
          ...(request.launch?.args ? { args: request.launch.args } : {}),
        },
        request.settings,
      );
      const handle = await withinStartTimeout(entry, provider.name, timeoutMs, () =>
        sessionScope.run(entry.session.agentSessionId, () =>
          openDaemonSession(this.#open, provider, entry, setup, operation, providerSessionId),
        ),
      );
      entry.handle = handle;
      if (entry.status === 'starting') entry.status = 'ready';
      if (entry.agent?.exit && !entry.agent.exit.expected) this.#agentEnded(entry, entry.agent);
      await this.#record(entry, request, handle.providerSessionId, startedAt);
      this.#publishStarted(entry);
      return entryInfo(entry);
    } catch (error) {
      const answer = startError(provider, entry, error);
      this.#sessions.delete(entry.session.agentSessionId);
      await this.#drop(entry);
      throw answer;
    }
  }

  /** Keeps the session's record (daemon-driven sessions, when the host keeps records). */
  async #record(
    entry: SessionEntry,
    request: StartSessionRequest,
    providerSessionId: string,
    startedAt = new Date().toISOString(),
  ): Promise<void> {
    const records = this.#options.records;
    if (!records) return;
    const record = sessionRecordOf(entry, request, providerSessionId, startedAt);
    entry.record = record;
    try {
      await records.put(record, request.env ?? {}, request.launch?.env ?? {});
    } catch (error) {
      this.#options.onProblem?.(
        entry.session,
        `the session could not be recorded for a restart: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /**
   * Brings a recorded session back after a daemon restart, with a fresh binding and token:
   * afresh when it had no turn, else resumed when its provider can, else loaded; one that
   * cannot come back is listed `needs-restart` with the reason (and `GET /v1/events` says
   * so). Each attempt ends by the restore deadline.
   */
  async restoreSession(stored: StoredSession): Promise<AgentSessionInfo> {
    const remaining = () => this.#restoreDeadline - Date.now();
    if (remaining() <= 0) {
      return this.#needsRestart(stored, [
        `the daemon's start could not bring it back within ${this.#restoreWithinMs / 1000} s`,
      ]);
    }
    const back = await comeBack(this.#restoreServices(), stored, {
      orFresh: false,
      timeoutMs: () => Math.max(1, Math.min(this.#agentTimeoutMs(), remaining())),
    });
    return 'info' in back ? back.info : this.#needsRestart(stored, back.reasons);
  }

  /**
   * Restarts a session listed `needs-restart`: resumed or loaded when its agent can, else
   * started afresh with the same id, settings and permissions. Counts as a new live session
   * against the session limit. Answers how it came back.
   */
  async restartSession(
    agentSessionId: string,
  ): Promise<AgentSessionInfo & { readonly restartedAs: CameBackAs }> {
    const entry = this.#sessions.entry(agentSessionId);
    if (entry.status !== 'needs-restart' || !entry.stored) {
      throw new TuttiError('TUTTI_ERR_SESSION_NOT_RESTARTABLE', {
        session: agentSessionId,
        status: entry.status,
      });
    }
    const stored = entry.stored;
    this.#sessions.delete(agentSessionId);
    const back = await comeBack(this.#restoreServices(), stored, { orFresh: true });
    if ('info' in back) return { ...back.info, restartedAs: back.as };
    this.#needsRestart(stored, back.reasons, 'the session could not be restarted');
    throw new TuttiError('TUTTI_ERR_SESSION_RESTART_FAILED', {
      session: agentSessionId,
      reason: back.reasons.join('; '),
    });
  }

  #restoreServices(): RestoreServices {
    return {
      provider: (name) => this.#providers.get(name),
      start: (request, operation, providerSessionId, startedAt, timeoutMs) =>
        this.#start(
          request,
          operation,
          providerSessionId,
          startedAt,
          timeoutMs,
          operation !== 'new',
        ),
    };
  }

  /** Lists a recorded session `needs-restart` with `reasons`, keeping what restarts it. */
  #needsRestart(
    stored: StoredSession,
    reasons: readonly string[],
    lead = 'the session could not come back after the daemon restarted',
  ): AgentSessionInfo {
    const request = restoreRequest(stored);
    const provider = this.#providers.get(request.provider);
    const entry = this.#sessions.add(
      request,
      request.provider,
      provider?.flags ?? { httpMcp: false, listChanged: false },
      'daemon',
      { ...request.env },
      'resume',
      false,
    );
    const reason = `${lead}: ${reasons.join('; ')}`;
    entry.status = 'needs-restart';
    entry.reason = reason;
    entry.stored = stored;
    this.#options.events?.publish({
      type: 'session.needs-restart',
      session: entry.session.agentSessionId,
      provider: request.provider,
      reason,
    });
    return entryInfo(entry);
  }

  /** True while {@link restoreSessions} runs. */
  get restoring(): boolean {
    return this.#restoring > 0;
  }

  /**
   * Brings back every recorded session, a few at a time (each listed `starting` while it
   * comes back), then publishes `sessions.restored` with how many came back. One that could
   * not even be listed (the session limit, a clash of ids) is answered with its error.
   */
  async restoreSessions(
    records: readonly StoredSession[] | Promise<readonly StoredSession[]>,
  ): Promise<RestoreResult[]> {
    // Counted before the first await: a listing asked meanwhile says it is restoring.
    this.#restoring += 1;
    try {
      const stored = await records;
      return await restoreAll(
        stored,
        (session) => this.restoreSession(session),
        this.#options.events,
      );
    } finally {
      this.#restoring -= 1;
    }
  }

  /**
   * Stops every session for a daemon shutdown: agents stopped and tokens revoked, but the
   * records and the folders a daemon-driven session needs to come back are kept.
   */
  async suspend(): Promise<void> {
    this.#unsubscribe?.();
    await Promise.allSettled(
      this.#sessions.values().map(async (entry) => {
        this.#sessions.delete(entry.session.agentSessionId);
        if (entry.mode === 'host') return this.#drop(entry);
        return this.#drop(entry, { keepFiles: true });
      }),
    );
    await this.settled();
  }

  #agentTimeoutMs(): number {
    return this.#options.agentTimeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS;
  }

  async #setup(
    entry: SessionEntry,
    provider: AgentProvider,
    launch: { command?: string; args?: readonly string[]; env: Readonly<Record<string, string>> },
    settings: readonly string[] = [],
  ) {
    const env = await this.#preparer.launchEnv(launch.env);
    if (entry.session.permissions !== 'agent') {
      for (const name of provider.permissions?.clearEnv ?? []) delete env[name];
    }
    const resolved: ResolvedLaunch = Object.freeze({
      command: launch.command ?? provider.launch?.command,
      args: Object.freeze([...(launch.args ?? provider.launch?.args ?? [])]),
      env: Object.freeze(env),
    });
    return createSetup(
      entry,
      resolved,
      {
        processes: this.#options.processes,
        redactor: this.#options.redactor,
        onAgentExit: (ended, agent) => this.#agentEnded(ended, agent),
        preview: (of) => this.#preparer.preview(of.session),
      },
      this.#agentTimeoutMs(),
      settings,
    );
  }

  async #prepare(entry: SessionEntry, probe: AgentProbe | undefined): Promise<PreparedRuntime> {
    const runtime = await this.#preparer.prepare({
      session: entry.session,
      cwd: entry.cwd,
      env: entry.baseEnv,
      probe,
    });
    entry.connector = runtime.mcpServers.length > 0 ? 'bound' : 'plain';
    const headers = runtime.mcpServers.flatMap((binding) => Object.values(binding.headers));
    entry.forget.push(this.#options.redactor?.add(...headers) ?? (() => {}));
    return runtime;
  }

  /** The current agent of a daemon-driven session ended without the host stopping it. */
  #agentEnded(entry: SessionEntry, agent: AgentProcess): void {
    if (entry.status === 'starting' || this.#sessions.get(entry.session.agentSessionId) !== entry) {
      return;
    }
    const exit = exitOf(agent);
    if (exit) entry.exit = exit;
    const reason = `the agent ${exit ? `exited (${exit.description})` : 'ended'}.${stderrSentence(exit?.stderr ?? [])}`;
    void this.#end(entry, reason);
  }

  /**
   * Marks a session exited with `reason`, stops what is left of it, revokes its token and
   * forgets its record (an ended session is not brought back by the next start). It stays
   * listed with its reason until it is closed; past EXITED_KEPT such, the oldest is dropped.
   */
  async #end(entry: SessionEntry, reason: string): Promise<void> {
    if (entry.status === 'exited') return;
    entry.status = 'exited';
    entry.reason = reason;
    entry.turn?.cancel();
    void this.#options.records?.remove(entry.session.agentSessionId).catch(() => {});
    this.#sessions.forgetOldExited();
    this.#options.events?.publish({
      type: 'session.ended',
      session: entry.session.agentSessionId,
      provider: entry.session.provider,
      reason,
    });
    await this.#stop(entry);
  }

  #drop(entry: SessionEntry, options: { keepFiles?: boolean } = {}): Promise<void> {
    return dropSession(entry, this.#options.tokens, options);
  }

  #stop(entry: SessionEntry): Promise<void> {
    return stopSession(entry, this.#options.tokens);
  }

  #publishStarted(entry: SessionEntry): void {
    this.#options.events?.publish({
      type: 'session.started',
      session: entry.session.agentSessionId,
      provider: entry.session.provider,
      connector: entry.connector,
    });
  }

  /** The handle of a host-driven session: what a refresh asks of it is told to the host. */
  #hostHandle(entry: SessionEntry, providerSessionId = ''): LiveSession {
    return {
      providerSessionId,
      reload: async (params) => {
        entry.projection = Object.freeze({ params, env: entry.projection?.env ?? {} });
        return true;
      },
      reconnectBeforeNextTurn: async () => true,
    };
  }

  #track(promise: Promise<unknown>): void {
    this.#pending.add(promise);
    void promise.finally(() => this.#pending.delete(promise));
  }
}
