/**
 * AgentSessionHost: starts, loads, resumes, lists and closes agent sessions through the
 * registered providers; issues one token per session (through the preparer) and revokes it
 * when the session ends; runs each live session's refresh chain when the visible tool list
 * changes and records the strategy that handled it.
 */
import { randomUUID } from 'node:crypto';
import {
  NO_CAPABILITIES,
  type PreparedRuntime,
  type ProviderCapabilities,
  providerCapabilitiesSchema,
} from '../contracts/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { createSessionHooks, type RefreshContext, type SessionHooks } from './hooks.js';
import type {
  AgentSessionHostOptions,
  AgentSessionInfo,
  AgentSessionStatus,
  PrepareOnlyRequest,
  RefreshRecord,
  StartSessionRequest,
  ToolsListedRecord,
} from './host-types.js';
import { DefaultPreparer } from './preparer.js';
import { tapStandardRefreshStrategies } from './refresh-strategies.js';
import type {
  AgentProbe,
  AgentProvider,
  ProviderSession,
  ProviderSessionContext,
  SessionContext,
} from './types.js';

interface Entry {
  readonly session: SessionContext;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  status: AgentSessionStatus;
  connector: 'bound' | 'plain' | 'none';
  handle?: ProviderSession;
  lastRefresh?: RefreshRecord;
  toolsListed?: ToolsListedRecord;
  refreshing: Promise<unknown>;
}

/** The session host the daemon composes; also the `host` a plugin's `apply` receives. */
export class AgentSessionHost {
  /** The frozen hook table; see `docs/hooks.md`. */
  readonly hooks: SessionHooks;
  readonly #options: AgentSessionHostOptions;
  readonly #preparer: DefaultPreparer;
  readonly #providers = new Map<
    string,
    { provider: AgentProvider; capabilities: Readonly<ProviderCapabilities> }
  >();
  readonly #sessions = new Map<string, Entry>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #unsubscribe: (() => void) | undefined;

  constructor(options: AgentSessionHostOptions) {
    this.#options = options;
    this.hooks = options.hooks ?? createSessionHooks();
    tapStandardRefreshStrategies(this.hooks);
    this.#preparer = new DefaultPreparer({
      hooks: this.hooks,
      connector: options.connector,
      tokens: options.tokens,
      ...(options.guidance ? { guidance: options.guidance } : {}),
      ...(options.onPlain ? { onPlain: options.onPlain } : {}),
    });
    this.#unsubscribe = options.registry?.onListChanged((snapshot) => {
      this.#track(this.refreshSessions(snapshot.version));
    });
  }

  /** Adds a provider; a second provider of the same name is refused. */
  registerProvider(provider: AgentProvider): void {
    if (this.#providers.has(provider.name)) {
      throw new TuttiError('TUTTI_ERR_PLUGIN_DUPLICATE_PROVIDER', { provider: provider.name });
    }
    const capabilities = Object.freeze(providerCapabilitiesSchema.parse(provider.capabilities));
    this.#providers.set(provider.name, { provider, capabilities });
  }

  /** Names and capabilities of the registered providers. */
  listProviders(): { name: string; capabilities: Readonly<ProviderCapabilities> }[] {
    return [...this.#providers.values()].map(({ provider, capabilities }) => ({
      name: provider.name,
      capabilities,
    }));
  }

  /** Starts a new agent session. */
  createSession(request: StartSessionRequest): Promise<AgentSessionInfo> {
    return this.#start(request, 'new', undefined);
  }

  /** Loads an earlier session of the agent (ACP `session/load`) with a fresh binding. */
  loadSession(request: StartSessionRequest, providerSessionId: string): Promise<AgentSessionInfo> {
    return this.#start(request, 'load', providerSessionId);
  }

  /** Resumes an earlier session of the agent (ACP `session/resume`) with a fresh binding. */
  resumeSession(
    request: StartSessionRequest,
    providerSessionId: string,
  ): Promise<AgentSessionInfo> {
    return this.#start(request, 'resume', providerSessionId);
  }

  /** Prepares a runtime for an agent the caller spawns itself; close it with `closeSession`. */
  async prepareOnly(
    request: PrepareOnlyRequest,
  ): Promise<{ agentSessionId: string; runtime: PreparedRuntime }> {
    const capabilities = Object.freeze({ ...NO_CAPABILITIES, ...request.capabilities });
    const entry = this.#add(request, request.provider, capabilities);
    try {
      const runtime = await this.#preparer.prepare({
        session: entry.session,
        cwd: entry.cwd,
        env: entry.env,
        probe: request.probe ?? { httpMcp: capabilities.httpMcp },
      });
      entry.connector = runtime.mcpServers.length > 0 ? 'bound' : 'plain';
      entry.status = 'prepared';
      return { agentSessionId: entry.session.agentSessionId, runtime };
    } catch (error) {
      await this.#drop(entry);
      throw error;
    }
  }

  /** Every session the host holds, with its status. */
  listSessions(): AgentSessionInfo[] {
    return [...this.#sessions.values()].map(info);
  }

  /** Records a `tools/list` served to the session's agent (unknown sessions are ignored). */
  noteToolsListed(agentSessionId: string, listed: ToolsListedRecord): void {
    const entry = this.#sessions.get(agentSessionId);
    if (entry) entry.toolsListed = Object.freeze({ ...listed });
  }

  /** Ends a session: closes the agent, revokes its token, runs `sessionClose`. */
  async closeSession(agentSessionId: string): Promise<void> {
    const entry = this.#sessions.get(agentSessionId);
    if (!entry) throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN', { session: agentSessionId });
    await this.#drop(entry);
    await this.hooks.sessionClose.promise(entry.session);
  }

  /** Runs the refresh chain of every live bound session; resolves with what each recorded. */
  async refreshSessions(version: number): Promise<Map<string, RefreshRecord>> {
    const live = [...this.#sessions.values()].filter(
      (entry) => entry.connector === 'bound' && entry.status !== 'starting',
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
    kind: 'new' | 'load' | 'resume',
    providerSessionId: string | undefined,
  ): Promise<AgentSessionInfo> {
    const registered = this.#providers.get(request.provider);
    if (!registered) {
      throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN_PROVIDER', {
        provider: request.provider,
        known: [...this.#providers.keys()].join(', ') || '(none)',
      });
    }
    const { provider, capabilities } = registered;
    const open =
      kind === 'new'
        ? provider.newSession
        : kind === 'load'
          ? provider.loadSession
          : provider.resumeSession;
    if (!open) {
      throw new TuttiError('TUTTI_ERR_SESSION_UNSUPPORTED', {
        provider: provider.name,
        operation: kind,
      });
    }
    const entry = this.#add(request, provider.name, capabilities);
    const context: ProviderSessionContext = Object.freeze({
      session: entry.session,
      cwd: request.cwd,
      env: Object.freeze(await this.#preparer.launchEnv(entry.env)),
      launch: request.launch ?? {},
      hooks: this.hooks,
      ...(this.#options.processes ? { processes: this.#options.processes } : {}),
      prepare: async (probe: AgentProbe | undefined) => {
        const runtime = await this.#preparer.prepare({
          session: entry.session,
          cwd: entry.cwd,
          env: entry.env,
          probe,
        });
        entry.connector = runtime.mcpServers.length > 0 ? 'bound' : 'plain';
        return runtime;
      },
    });
    try {
      const handle = await open.call(provider, context, providerSessionId ?? '');
      entry.handle = handle;
      entry.status = 'ready';
      handle.onExit?.(() => {
        if (this.#sessions.get(entry.session.agentSessionId) !== entry) return;
        entry.status = 'exited';
        void this.#revoke(entry);
      });
      return info(entry);
    } catch (error) {
      await this.#drop(entry);
      if (isTuttiError(error)) throw error;
      throw new TuttiError(
        'TUTTI_ERR_SESSION_START_FAILED',
        {
          provider: provider.name,
          session: entry.session.agentSessionId,
          reason: error instanceof Error ? error.message : String(error),
        },
        { cause: error },
      );
    }
  }

  #add(
    request: Pick<StartSessionRequest, 'agentSessionId' | 'workspaceId' | 'cwd' | 'env'>,
    provider: string,
    capabilities: Readonly<ProviderCapabilities>,
  ): Entry {
    const { workspaceId } = request;
    const agentSessionId = request.agentSessionId ?? randomUUID();
    if (this.#sessions.has(agentSessionId)) {
      throw new TuttiError('TUTTI_ERR_SESSION_EXISTS', { session: agentSessionId });
    }
    const session: SessionContext = Object.freeze({
      agentSessionId,
      workspaceId,
      provider,
      capabilities,
    });
    const entry: Entry = {
      session,
      cwd: request.cwd,
      env: Object.freeze({ ...request.env }),
      status: 'starting',
      connector: 'none',
      refreshing: Promise.resolve(),
    };
    this.#sessions.set(agentSessionId, entry);
    return entry;
  }

  /** Forgets the entry, closes its agent and revokes its token (errors are swallowed). */
  async #drop(entry: Entry): Promise<void> {
    this.#sessions.delete(entry.session.agentSessionId);
    await entry.refreshing.catch(() => {});
    await entry.handle?.close().catch(() => {});
    await this.#revoke(entry);
  }

  async #revoke(entry: Entry): Promise<void> {
    const { workspaceId, agentSessionId } = entry.session;
    try {
      await this.#options.tokens.revokeSession(workspaceId, agentSessionId);
    } catch {
      // A token service that cannot revoke has nothing left to revoke for this session.
    }
  }

  #refresh(entry: Entry, version: number): Promise<RefreshRecord> {
    const run = async (): Promise<RefreshRecord> => {
      const handle = entry.handle ?? detachedHandle(entry);
      const context: RefreshContext = Object.freeze({
        session: entry.session,
        handle,
        version,
        listChangedDelivered: this.#options.listChangedDelivered ?? false,
        rebind: () =>
          this.#preparer.prepare({
            session: entry.session,
            cwd: entry.cwd,
            env: entry.env,
            probe: { httpMcp: true },
          }),
      });
      try {
        const strategy = await this.hooks.toolsListChanged.promise(context);
        if (strategy === 'resume-or-restart') entry.status = 'needs-restart';
        return strategy === undefined ? { version } : { version, strategy };
      } catch (error) {
        return { version, error: error instanceof Error ? error.message : String(error) };
      }
    };
    const next = entry.refreshing.then(run, run);
    entry.refreshing = next;
    return next.then((record) => {
      entry.lastRefresh = record;
      return record;
    });
  }

  #track(promise: Promise<unknown>): void {
    this.#pending.add(promise);
    void promise.finally(() => this.#pending.delete(promise));
  }
}

function info(entry: Entry): AgentSessionInfo {
  return {
    id: entry.session.agentSessionId,
    workspaceId: entry.session.workspaceId,
    provider: entry.session.provider,
    status: entry.status,
    connector: entry.connector,
    ...(entry.handle ? { providerSessionId: entry.handle.providerSessionId } : {}),
    ...(entry.handle?.pid === undefined ? {} : { pid: entry.handle.pid }),
    ...(entry.lastRefresh ? { lastRefresh: entry.lastRefresh } : {}),
    ...(entry.toolsListed ? { toolsListed: entry.toolsListed } : {}),
  };
}

/** The handle of a prepare-only session: the host cannot reload an agent it did not start. */
function detachedHandle(entry: Entry): ProviderSession {
  return {
    providerSessionId: '',
    connector: entry.connector === 'bound' ? 'bound' : 'plain',
    close: async () => {},
  };
}
