/**
 * AgentSessionHost: the table of a daemon's agent sessions and of its providers. It
 * creates sessions (daemon-driven, host-driven, provider-neutral), lists and closes them,
 * brings the recorded ones back after a restart and runs their refresh when the visible
 * tool list changes. Each session is an `AgentSession` that drives its own life;
 * `host.session(id)` is its handle.
 */
import type { ProviderCapabilities } from '../contracts/index.js';
import { agentInheritedEnv } from '../process/inherited-env.js';
import { createPassThroughTracer } from '../telemetry/pass-through.js';
import type { TraceContext } from '../telemetry/trace-context.js';
import type { AgentSession } from './agent-session.js';
import { createSessionHooks, type ProviderHooks, type SessionHooks } from './hooks.js';
import { TapGuard } from './tap-guard.js';
import type { HostParts } from './host-parts.js';
import type * as T from './host-types.js';
import { LiveSlots } from './live-slots.js';
import { DefaultPreparer } from './preparer.js';
import type { AgentProvider } from './provider-contract.js';
import { ProviderTable } from './provider-table.js';
import { restoreRequest } from './recorded-session.js';
import { DaemonDriven, HostDriven } from './session-driving.js';
import type { StoredSession } from './session-records.js';
import { type RestoreResult, restoreAll } from './session-restore.js';
import { askedAgain, SessionTable } from './session-table.js';
import type { SessionOperation } from './session-types.js';

/** Every recorded session is back or `needs-restart` within this long of the host's start. */
const RESTORE_WITHIN_MS = 60_000;

/** The session host the daemon composes; also the `host` a plugin's `apply` receives. */
export class AgentSessionHost {
  /** The frozen hook table; see `docs/hooks.md`. */
  readonly hooks: SessionHooks;
  /** Attributes the taps of each plugin being applied, and silences a failed plugin's. */
  readonly taps = new TapGuard();
  readonly #parts: HostParts;
  readonly #providers: ProviderTable;
  readonly #sessions = new SessionTable();
  readonly #inherited: Readonly<Record<string, string>>;
  readonly #restoreWithin: { readonly deadline: number; readonly ms: number };
  readonly #pending = new Set<Promise<unknown>>();
  readonly #unsubscribe: (() => void) | undefined;
  #restoring = 0;

  constructor(options: T.AgentSessionHostOptions) {
    const ms = options.restoreWithinMs ?? RESTORE_WITHIN_MS;
    this.#restoreWithin = { deadline: Date.now() + ms, ms };
    this.hooks = createSessionHooks(this.taps.attach);
    this.#providers = new ProviderTable(this.hooks);
    this.#inherited = options.inheritedEnv ?? agentInheritedEnv();
    const preparer = new DefaultPreparer({
      hooks: this.hooks,
      connector: options.connector,
      tokens: options.tokens,
      ...(options.guidance ? { guidance: options.guidance } : {}),
      ...(options.onPlain ? { onPlain: options.onPlain } : {}),
      ...(this.#inherited.PATH !== undefined ? { defaultPath: this.#inherited.PATH } : {}),
    });
    const slots = new LiveSlots(options.maxSessions);
    this.#parts = {
      options,
      hooks: this.hooks,
      preparer,
      providers: this.#providers,
      slots,
      tracer: options.tracer ?? createPassThroughTracer(),
    };
    this.#unsubscribe = options.registry?.onListChanged((snapshot) => {
      this.#track(this.refreshSessions(snapshot.version));
    });
  }

  /**
   * Adds a provider and hands back its hooks, typed with its params, for other plugins to
   * tap (a provider's own steps are its methods); a second provider of the same name is
   * refused unless `replace` is set.
   */
  registerProvider<P>(
    provider: AgentProvider<string, P>,
    options: { readonly replace?: boolean } = {},
  ): ProviderHooks<P> {
    return this.#providers.register(provider, options);
  }

  /**
   * Removes a provider (an installed agent that was removed): new sessions of that name are
   * refused, running ones keep the provider they started with. False when there was none.
   */
  removeProvider(name: string): boolean {
    return this.#providers.remove(name);
  }

  /** Whether a provider of that name is registered. */
  hasProvider(name: string): boolean {
    return this.#providers.get(name) !== undefined;
  }

  /** Names and capabilities of the registered providers, derived from what each implements. */
  listProviders(): { name: string; capabilities: ProviderCapabilities }[] {
    return this.#providers.list();
  }

  /** Starts a new daemon-driven session. */
  createSession(request: T.StartSessionRequest): Promise<T.AgentSessionInfo> {
    return this.#start(request, 'new');
  }

  /** Loads an earlier session of the agent with a fresh binding. */
  loadSession(request: T.StartSessionRequest, providerSessionId: string) {
    return this.#start(request, 'load', providerSessionId);
  }

  /** Resumes an earlier session of the agent with a fresh binding. */
  resumeSession(request: T.StartSessionRequest, providerSessionId: string) {
    return this.#start(request, 'resume', providerSessionId);
  }

  /**
   * Prepares a session of `provider` for a host that spawns the agent itself: the runtime
   * and the provider's projection. Asking again for the same session re-issues its token.
   */
  async prepareSession(request: T.PrepareSessionRequest): Promise<T.PreparedSession> {
    const provider = this.#providers.require(request.provider);
    const ask = { ...request, provider: provider.name, flags: provider.flags };
    const session = this.#sessions.add(this.#parts, ask, new HostDriven(), {
      baseEnv: { ...request.env },
      replaces: askedAgain(ask),
    });
    return this.#opening(session, () =>
      session.prepareForHost(provider, request.agentCapabilities, request.settings),
    );
  }

  /** Prepares the provider-neutral runtime for an agent the caller spawns itself. */
  async prepareOnly(request: T.PrepareOnlyRequest): Promise<T.PreparedSession> {
    this.#providers.tapChain(request.provider);
    const session = this.#sessions.add(this.#parts, request, new HostDriven(), {
      baseEnv: { ...request.env },
      replaces: askedAgain(request),
    });
    return this.#opening(session, () => session.prepareForHost(undefined));
  }

  /** The session of that id; TUTTI_ERR_SESSION_UNKNOWN when there is none. */
  session(agentSessionId: string): AgentSession {
    return this.#sessions.require(agentSessionId);
  }

  /** The session of that id, if the host holds one. */
  findSession(agentSessionId: string): AgentSession | undefined {
    return this.#sessions.get(agentSessionId);
  }

  /**
   * The trace context a `connector` tools/call of local tool `localToolName`, made with
   * that session's token and carrying no trace context of its own, hangs under: the
   * running turn's newest open proven call of that tool, else its newest open `connector`
   * call, else the turn. Undefined when the session runs no turn or nothing is recorded.
   * A map lookup or two: the daemon asks on every such call.
   */
  toolCallParent(agentSessionId: string, localToolName: string): TraceContext | undefined {
    return this.#sessions.get(agentSessionId)?.toolCallParent(localToolName);
  }

  /** Every session the host holds, with its status. */
  listSessions(): T.AgentSessionInfo[] {
    return this.#sessions.values().map((session) => session.info());
  }

  /**
   * What the agents of live sessions are asked and nobody answered yet, oldest first (see
   * {@link AgentSession.pendingElicitations}).
   */
  pendingElicitations(): T.PendingElicitationInfo[] {
    return this.#sessions
      .values()
      .flatMap((session) => session.pendingElicitations())
      .sort((a, b) => a.since - b.since);
  }

  /** Ends a session: closes the agent, revokes its token, runs `sessionClose`. */
  async closeSession(agentSessionId: string): Promise<void> {
    const session = this.#sessions.require(agentSessionId);
    this.#sessions.delete(session);
    await session.close();
  }

  /** Runs the refresh chain of every live bound session; resolves with what each recorded. */
  async refreshSessions(version: number): Promise<Map<string, T.RefreshRecord>> {
    const live = this.#sessions
      .values()
      .filter(
        (session) =>
          session.connector === 'bound' &&
          (session.status === 'ready' || session.status === 'prepared'),
      );
    const records = await Promise.all(live.map((session) => session.refresh(version)));
    return new Map(live.map((session, index) => [session.id, records[index]!]));
  }

  /** True while {@link restoreSessions} runs. */
  get restoring(): boolean {
    return this.#restoring > 0;
  }

  /**
   * Brings back every recorded session, a few at a time (each listed `starting` while it
   * comes back), then publishes `sessions.restored` with how many came back. One that could
   * not even be listed (a clash of ids) is answered with its error.
   */
  async restoreSessions(
    records: readonly StoredSession[] | Promise<readonly StoredSession[]>,
  ): Promise<RestoreResult[]> {
    // Counted before the first await: a listing asked meanwhile says it is restoring.
    this.#restoring += 1;
    try {
      const restoreOne = (stored: StoredSession) => {
        const request = restoreRequest(stored);
        const flags = this.#providers.get(request.provider)?.flags;
        const session = this.#sessions.add(this.#parts, { ...request, flags }, new DaemonDriven(), {
          baseEnv: { ...this.#inherited, ...request.env },
          status: 'needs-restart',
        });
        return session.restore(stored, this.#restoreWithin);
      };
      return await restoreAll(await records, restoreOne, this.#parts.options.events);
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
    const sessions = this.#sessions.values();
    for (const session of sessions) this.#sessions.delete(session);
    await Promise.allSettled(sessions.map((session) => session.suspend()));
    await this.settled();
  }

  /** Resolves when every refresh started by a registry change has settled. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Stops listening to the registry and closes every session. */
  async close(): Promise<void> {
    this.#unsubscribe?.();
    const ids = this.#sessions.values().map((session) => session.id);
    await Promise.allSettled(ids.map((id) => this.closeSession(id)));
    await this.settled();
  }

  async #start(
    request: T.StartSessionRequest,
    operation: SessionOperation,
    providerSessionId?: string,
  ): Promise<T.AgentSessionInfo> {
    const provider = this.#providers.forSession(request.provider, operation, request.permissions);
    const ask = { ...request, provider: provider.name, flags: provider.flags };
    const session = this.#sessions.add(this.#parts, ask, new DaemonDriven(), {
      baseEnv: { ...this.#inherited, ...request.env },
    });
    return this.#opening(session, () =>
      session.open(provider, request, operation, providerSessionId),
    );
  }

  /** Runs a new session's first step; one that fails leaves the table and frees its slot. */
  async #opening<R>(session: AgentSession, first: () => Promise<R>): Promise<R> {
    try {
      return await first();
    } catch (error) {
      this.#sessions.delete(session);
      session.forget();
      throw error;
    }
  }

  #track(promise: Promise<unknown>): void {
    this.#pending.add(promise);
    void promise.finally(() => this.#pending.delete(promise));
  }
}
