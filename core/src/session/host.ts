/**
 * AgentSessionHost: drives every agent session's life cycle, once, for every provider:
 * spawn (core's one agent spawn), handshake, prepare (one token per session), projection
 * hooks, binding check, open, refresh when the visible tool list changes, and close (the
 * processes stopped, the session folder removed, the token revoked). Host-driven sessions
 * stop after the projection and hand it to the host.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import {
  type PreparedRuntime,
  type ProviderCapabilities,
  providerFlagsSchema,
} from '../contracts/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import type { AgentProcess } from '../process/agent-process.js';
import { agentInheritedEnv } from '../process/inherited-env.js';
import { createSessionHooks, type RefreshContext, type SessionHooks } from './hooks.js';
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
  hookContext,
  type OpenServices,
  openDaemonSession,
  prepareHostSession,
  startError,
} from './open-session.js';
import { stderrSentence } from './agent-channel.js';
import { DefaultPreparer } from './preparer.js';
import type { SessionRecord, StoredSession } from './session-records.js';
import { guardProjections, projectSession } from './project-session.js';
import type { AgentProvider, LiveSession, ResolvedLaunch } from './provider-contract.js';
import {
  refreshAction,
  refreshStrategiesOf,
  tapStandardRefreshStrategies,
} from './refresh-strategies.js';
import {
  createEntry,
  createSetup,
  entryInfo,
  exitOf,
  type SessionEntry,
  sessionScope,
} from './session-entry.js';
import type { AgentProbe, SessionContext, SessionOperation } from './session-types.js';
import { TurnRunner } from './turn-runner.js';
import type { PermissionMode, PermissionOutcome, PromptBlock, TurnEvent } from './turn-types.js';

const DEFAULT_MAX_SESSIONS = 64;
const DEFAULT_AGENT_TIMEOUT_MS = 60_000;
const DEFAULT_PERMISSION_TIMEOUT_MS = 5 * 60_000;
/** How long a provider's protocol-level close may take before the processes are stopped. */
const CLOSE_TIMEOUT_MS = 3_000;

/** How long a turn waits for an agent that refreshes live to re-list after a refresh. */
const RELIST_WAIT_MS = 5_000;
/** Recorded sessions brought back at once after a restart (each spawns an agent). */
const RESTORE_CONCURRENCY = 4;

/**
 * Resolves once the session's agent listed the tools its last live refresh (list_changed,
 * native reload) brought, or after a bound wait: the agent re-lists on its own time.
 */
async function relisted(entry: SessionEntry): Promise<void> {
  const refresh = entry.lastRefresh;
  if (refresh?.strategy !== 'list-changed' && refresh?.strategy !== 'native-reload') return;
  const deadline = Date.now() + RELIST_WAIT_MS;
  while ((entry.toolsListed?.version ?? -1) < refresh.version && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The session host the daemon composes; also the `host` a plugin's `apply` receives. */
export class AgentSessionHost {
  /** The frozen hook table; see `docs/hooks.md`. */
  readonly hooks: SessionHooks;
  readonly #options: AgentSessionHostOptions;
  readonly #preparer: DefaultPreparer;
  readonly #providers = new Map<string, AgentProvider>();
  readonly #sessions = new Map<string, SessionEntry>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #unsubscribe: (() => void) | undefined;
  #restoring = 0;
  readonly #inherited: Readonly<Record<string, string>>;
  readonly #open: OpenServices;

  constructor(options: AgentSessionHostOptions) {
    this.#options = options;
    this.hooks = options.hooks ?? createSessionHooks();
    this.#inherited = options.inheritedEnv ?? agentInheritedEnv();
    this.#preparer = new DefaultPreparer({
      hooks: this.hooks,
      connector: options.connector,
      tokens: options.tokens,
      ...(options.guidance ? { guidance: options.guidance } : {}),
      ...(options.onPlain ? { onPlain: options.onPlain } : {}),
    });
    this.#open = { hooks: this.hooks, prepare: (entry, probe) => this.#prepare(entry, probe) };
    this.#unsubscribe = options.registry?.onListChanged((snapshot) => {
      this.#track(this.refreshSessions(snapshot.version));
    });
  }

  /** Adds a provider; a second provider of the same name is refused unless `replace` is set. */
  registerProvider(provider: AgentProvider, options: { readonly replace?: boolean } = {}): void {
    if (this.#providers.has(provider.name) && !options.replace) {
      throw new TuttiError('TUTTI_ERR_PLUGIN_DUPLICATE_PROVIDER', { provider: provider.name });
    }
    const parsed = providerFlagsSchema.safeParse(provider.flags);
    if (!parsed.success) {
      throw new TuttiError('TUTTI_ERR_PLUGIN_INVALID_PROVIDER', {
        provider: provider.name,
        reason: `flags: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'flags'} ${issue.message}`).join('; ')}`,
      });
    }
    const flags = parsed.data;
    if (Boolean(provider.handshake) !== Boolean(provider.probeOf)) {
      throw new TuttiError('TUTTI_ERR_PLUGIN_INVALID_PROVIDER', {
        provider: provider.name,
        reason: 'a provider with a handshake also says what it means (probeOf), and only then',
      });
    }
    this.#providers.set(provider.name, Object.freeze({ ...provider, flags: Object.freeze(flags) }));
    tapStandardRefreshStrategies(this.hooks, provider.name);
    guardProjections(this.hooks, provider);
  }

  /** Names and capabilities of the registered providers, derived from what each implements. */
  listProviders(): { name: string; capabilities: ProviderCapabilities }[] {
    return [...this.#providers.values()].map((provider) => ({
      name: provider.name,
      capabilities: {
        ...provider.flags,
        handshake: Boolean(provider.handshake),
        load: Boolean(provider.loadSession),
        resume: Boolean(provider.resumeSession),
        refresh: refreshStrategiesOf(this.hooks, provider.name),
      },
    }));
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
    const provider = this.#provider(request.provider);
    const entry = this.#addOrReuse(request, provider.name, provider.flags);
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
    const entry = this.#addOrReuse(request, request.provider, request.flags);
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
    const entry = this.#entry(agentSessionId);
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
    const entry = this.#entry(agentSessionId);
    if (entry.mode !== 'host') {
      throw new TuttiError('TUTTI_ERR_SESSION_NOT_HOST_DRIVEN', { session: agentSessionId });
    }
    entry.handle = this.#hostHandle(entry, providerSessionId);
    return entryInfo(entry);
  }

  /** Every session the host holds, with its status. */
  listSessions(): AgentSessionInfo[] {
    return [...this.#sessions.values()].map(entryInfo);
  }

  /** The live handle of a daemon-driven session (for turns). */
  handleOf(agentSessionId: string): LiveSession {
    const entry = this.#entry(agentSessionId);
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
    const entry = this.#entry(agentSessionId);
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
    const turn = sessionScope.run(
      agentSessionId,
      () =>
        new TurnRunner(handle, prompt, listener, {
          permissions: entry.session.permissions,
          permissionTimeoutMs: this.#options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
          provider: entry.session.provider,
        }),
    );
    entry.turn = turn;
    return { done: turn.done };
  }

  /** Cancels the running turn of a session; false when none runs. */
  cancelTurn(agentSessionId: string): boolean {
    return this.#entry(agentSessionId).turn?.cancel() ?? false;
  }

  /** Answers a permission request of the session's running turn. */
  answerPermission(agentSessionId: string, requestId: string, outcome: PermissionOutcome): void {
    const entry = this.#entry(agentSessionId);
    if (!entry.turn?.answer(requestId, outcome)) {
      throw new TuttiError('TUTTI_ERR_TURN_UNKNOWN_PERMISSION', {
        session: agentSessionId,
        request: requestId,
      });
    }
  }

  /** Records a `tools/list` served to the session's agent (unknown sessions are ignored). */
  noteToolsListed(agentSessionId: string, listed: ToolsListedRecord): void {
    const entry = this.#sessions.get(agentSessionId);
    if (entry) entry.toolsListed = Object.freeze({ ...listed });
  }

  /** Ends a session: closes the agent, revokes its token, runs `sessionClose`. */
  async closeSession(agentSessionId: string): Promise<void> {
    const entry = this.#entry(agentSessionId);
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
    const live = [...this.#sessions.values()].filter(
      (entry) =>
        entry.connector === 'bound' && (entry.status === 'ready' || entry.status === 'prepared'),
    );
    const records = await Promise.all(live.map((entry) => this.#refresh(entry, version)));
    return new Map(live.map((entry, index) => [entry.session.agentSessionId, records[index]!]));
  }

  /** Resolves when every refresh started by a registry change has settled. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Stops listening to the registry and closes every session. */
  async close(): Promise<void> {
    this.#unsubscribe?.();
    await Promise.allSettled([...this.#sessions.keys()].map((id) => this.closeSession(id)));
    await this.settled();
  }

  async #start(
    request: StartSessionRequest,
    operation: SessionOperation,
    providerSessionId: string | undefined,
    startedAt?: string,
  ): Promise<AgentSessionInfo> {
    const provider = this.#provider(request.provider);
    const supported =
      operation === 'new' ||
      (operation === 'load' ? provider.loadSession : provider.resumeSession) !== undefined;
    if (!supported) {
      throw new TuttiError('TUTTI_ERR_SESSION_UNSUPPORTED', { provider: provider.name, operation });
    }
    const baseEnv = { ...this.#inherited, ...request.env };
    const entry = this.#add(request, provider.name, provider.flags, 'daemon', baseEnv, operation);
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
      const handle = await this.#bounded(entry, provider, () =>
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
    const record: SessionRecord = {
      agentSessionId: entry.session.agentSessionId,
      workspaceId: entry.session.workspaceId,
      provider: entry.session.provider,
      ...(providerSessionId ? { providerSessionId } : {}),
      cwd: entry.cwd,
      launch: {
        ...(request.launch?.command ? { command: request.launch.command } : {}),
        ...(request.launch?.args ? { args: [...request.launch.args] } : {}),
      },
      permissions: entry.session.permissions,
      settings: [...(request.settings ?? [])],
      startedAt,
    };
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
   * resumed when its provider can, else loaded; one that cannot come back is listed
   * `needs-restart` with the reason (and `GET /v1/events` says so).
   */
  async restoreSession(stored: StoredSession): Promise<AgentSessionInfo> {
    const { record } = stored;
    const request: StartSessionRequest = {
      provider: record.provider,
      workspaceId: record.workspaceId,
      cwd: record.cwd,
      env: stored.env,
      agentSessionId: record.agentSessionId,
      permissions: record.permissions,
      settings: record.settings,
      launch: { ...record.launch, env: stored.launchEnv },
    };
    const provider = this.#providers.get(record.provider);
    const reasons: string[] = [];
    if (!provider) reasons.push(`no provider named "${record.provider}" is registered`);
    else if (!record.providerSessionId) reasons.push('the agent never named its session');
    else {
      for (const operation of ['resume', 'load'] as const) {
        const can = operation === 'resume' ? provider.resumeSession : provider.loadSession;
        if (!can) continue;
        try {
          return await this.#start(request, operation, record.providerSessionId, record.startedAt);
        } catch (error) {
          reasons.push(`${operation}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (reasons.length === 0)
        reasons.push(`provider "${record.provider}" can neither resume nor load`);
    }
    const entry = this.#add(
      request,
      record.provider,
      provider?.flags ?? { httpMcp: false, listChanged: false },
      'daemon',
      { ...stored.env },
      'resume',
    );
    entry.status = 'needs-restart';
    entry.reason = `the session could not come back after the daemon restarted: ${reasons.join('; ')}`;
    this.#options.events?.publish({
      type: 'session.needs-restart',
      session: record.agentSessionId,
      provider: record.provider,
      reason: entry.reason,
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
  ): Promise<Array<{ stored: StoredSession; info?: AgentSessionInfo; error?: unknown }>> {
    // Counted before the first await: a listing asked meanwhile says it is restoring.
    this.#restoring += 1;
    try {
      const stored = await records;
      const results: Array<{ stored: StoredSession; info?: AgentSessionInfo; error?: unknown }> =
        [];
      let next = 0;
      const worker = async () => {
        while (next < stored.length) {
          const session = stored[next++]!;
          try {
            results.push({ stored: session, info: await this.restoreSession(session) });
          } catch (error) {
            results.push({ stored: session, error });
          }
        }
      };
      const workers = Math.min(RESTORE_CONCURRENCY, stored.length);
      await Promise.all(Array.from({ length: workers }, worker));
      const ready = results.filter((result) => result.info?.status === 'ready').length;
      this.#options.events?.publish({
        type: 'sessions.restored',
        resumed: ready,
        needsRestart: results.length - ready,
      });
      return results;
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
      [...this.#sessions.values()].map(async (entry) => {
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

  /** Runs a start within the agent timeout; past it the start fails (the caller stops the agent). */
  async #bounded<T>(
    entry: SessionEntry,
    provider: AgentProvider,
    start: () => Promise<T>,
  ): Promise<T> {
    const ms = this.#agentTimeoutMs();
    let timer: NodeJS.Timeout | undefined;
    const running = start();
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        running.catch(() => {});
        reject(
          new TuttiError('TUTTI_ERR_SESSION_START_TIMEOUT', {
            provider: provider.name,
            session: entry.session.agentSessionId,
            ms,
            stderr: stderrSentence(entry.agent?.stderrLines() ?? []),
          }),
        );
      }, ms);
    });
    try {
      return await Promise.race([running, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #provider(name: string): AgentProvider {
    const provider = this.#providers.get(name);
    if (!provider) {
      throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN_PROVIDER', {
        provider: name,
        known: [...this.#providers.keys()].join(', ') || '(none)',
      });
    }
    return provider;
  }

  #entry(agentSessionId: string): SessionEntry {
    const entry = this.#sessions.get(agentSessionId);
    if (!entry) throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN', { session: agentSessionId });
    return entry;
  }

  #add(
    request: {
      agentSessionId?: string;
      workspaceId: string;
      cwd: string;
      permissions?: PermissionMode;
    },
    provider: string,
    flags: SessionContext['capabilities'],
    mode: SessionEntry['mode'],
    baseEnv: Readonly<Record<string, string>>,
    operation: SessionOperation,
  ): SessionEntry {
    const agentSessionId = request.agentSessionId ?? randomUUID();
    if (this.#sessions.has(agentSessionId)) {
      throw new TuttiError('TUTTI_ERR_SESSION_EXISTS', { session: agentSessionId });
    }
    const max = this.#options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    if (this.#sessions.size >= max) throw new TuttiError('TUTTI_ERR_SESSION_LIMIT', { max });
    const session: SessionContext = Object.freeze({
      agentSessionId,
      workspaceId: request.workspaceId,
      provider,
      capabilities: Object.freeze({ ...flags }),
      permissions: request.permissions ?? 'ask',
    });
    const entry = createEntry({
      session,
      mode,
      cwd: request.cwd,
      baseEnv,
      sessionsDir: this.#options.sessionsDir ?? tmpdir(),
      operation,
    });
    entry.forget.push(this.#options.redactor?.addEnv(baseEnv) ?? (() => {}));
    this.#sessions.set(agentSessionId, entry);
    return entry;
  }

  /**
   * A host-driven session asked for again by the same host re-issues its token (the old one
   * stops at once); a daemon-driven one is rebound only through its own resume.
   */
  #addOrReuse(
    request: {
      agentSessionId?: string;
      workspaceId: string;
      cwd: string;
      env?: Readonly<Record<string, string>>;
      permissions?: PermissionMode;
    },
    provider: string,
    flags: SessionContext['capabilities'],
  ): SessionEntry {
    const existing = request.agentSessionId
      ? this.#sessions.get(request.agentSessionId)
      : undefined;
    if (
      existing &&
      existing.mode === 'host' &&
      existing.session.workspaceId === request.workspaceId &&
      existing.session.provider === provider
    ) {
      this.#sessions.delete(existing.session.agentSessionId);
      for (const forget of existing.forget.splice(0)) forget();
    } else if (existing) {
      throw new TuttiError('TUTTI_ERR_SESSION_EXISTS', {
        session: existing.session.agentSessionId,
      });
    }
    return this.#add(request, provider, flags, 'host', { ...request.env }, 'new');
  }

  async #setup(
    entry: SessionEntry,
    provider: AgentProvider,
    launch: { command?: string; args?: readonly string[]; env: Readonly<Record<string, string>> },
    settings: readonly string[] = [],
  ) {
    const resolved: ResolvedLaunch = Object.freeze({
      command: launch.command ?? provider.launch?.command,
      args: Object.freeze([...(launch.args ?? provider.launch?.args ?? [])]),
      env: Object.freeze(await this.#preparer.launchEnv(launch.env)),
    });
    return createSetup(
      entry,
      resolved,
      {
        processes: this.#options.processes,
        redactor: this.#options.redactor,
        onAgentExit: (ended, agent) => this.#agentEnded(ended, agent),
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

  /** Marks a session exited with `reason`, stops what is left of it and revokes its token. */
  async #end(entry: SessionEntry, reason: string): Promise<void> {
    if (entry.status === 'exited') return;
    entry.status = 'exited';
    entry.reason = reason;
    entry.turn?.cancel();
    this.#options.events?.publish({
      type: 'session.ended',
      session: entry.session.agentSessionId,
      provider: entry.session.provider,
      reason,
    });
    await this.#stop(entry);
  }

  /** Closes the handle (bounded), stops every process, removes the folder, revokes the token. */
  async #drop(entry: SessionEntry, options: { keepFiles?: boolean } = {}): Promise<void> {
    entry.turn?.cancel();
    await entry.refreshing.catch(() => {});
    const close = entry.handle?.close?.();
    if (close) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      });
      await Promise.race([close.catch(() => {}), timeout]);
      clearTimeout(timer);
    }
    await this.#stop(entry, options);
  }

  async #stop(entry: SessionEntry, options: { keepFiles?: boolean } = {}): Promise<void> {
    await Promise.allSettled([...entry.processes].map((agent) => agent.terminate()));
    if (entry.agent) await entry.agent.terminate().catch(() => {});
    if (!options.keepFiles) await entry.files.remove().catch(() => {});
    const { workspaceId, agentSessionId } = entry.session;
    try {
      await this.#options.tokens.revokeSession(workspaceId, agentSessionId);
    } catch {
      // A token service that cannot revoke has nothing left to revoke for this session.
    }
    for (const forget of entry.forget.splice(0)) forget();
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

  #refresh(entry: SessionEntry, version: number): Promise<RefreshRecord> {
    const provider = this.#providers.get(entry.session.provider);
    const run = async (): Promise<RefreshRecord> => {
      const handle = entry.handle;
      if (!handle || entry.status === 'exited') return { version };
      const context: RefreshContext = Object.freeze({
        session: hookContext(entry, entry.operation, handle.providerSessionId || undefined),
        handle,
        version,
        listChangedDelivered: this.#options.listChangedDelivered ?? false,
        reproject: async (operation: SessionOperation) => {
          if (!provider)
            throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN_PROVIDER', {
              provider: entry.session.provider,
              known: [...this.#providers.keys()].join(', ') || '(none)',
            });
          const runtime = await this.#prepare(entry, { httpMcp: true });
          const params = await projectSession(
            this.hooks,
            provider,
            runtime,
            hookContext(entry, operation, handle.providerSessionId || undefined),
          );
          return { runtime, params };
        },
      });
      try {
        const chain = this.hooks.toolsListChanged.for(entry.session.provider);
        const strategy = await sessionScope.run(entry.session.agentSessionId, () =>
          chain.promise(context),
        );
        this.#publishRefresh(entry, version, strategy);
        return strategy === undefined ? { version } : { version, strategy };
      } catch (error) {
        const message =
          isTuttiError(error) || error instanceof Error ? error.message : String(error);
        this.#options.onProblem?.(entry.session, `refresh failed: ${message}`);
        return { version, error: message };
      }
    };
    const next = entry.refreshing.then(run, run);
    entry.refreshing = next;
    return next.then((record) => {
      entry.lastRefresh = record;
      return record;
    });
  }

  #publishRefresh(entry: SessionEntry, version: number, strategy: string | undefined): void {
    const { agentSessionId: session, provider } = entry.session;
    if (strategy === 'resume-or-restart') {
      if (entry.mode === 'daemon') entry.status = 'needs-restart';
      entry.reason =
        'the tool list changed and this agent cannot take it live: resume or restart it';
      this.#options.events?.publish({
        type: 'session.needs-restart',
        session,
        provider,
        reason: entry.reason,
      });
    }
    this.#options.events?.publish({
      type: 'session.refreshed',
      session,
      provider,
      version,
      strategy: strategy ?? 'none',
      action: refreshAction(strategy, entry.mode),
    });
  }

  #track(promise: Promise<unknown>): void {
    this.#pending.add(promise);
    void promise.finally(() => this.#pending.delete(promise));
  }
}
