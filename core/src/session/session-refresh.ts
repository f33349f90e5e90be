/**
 * The refresh of one live session when the visible tool list changed: the provider's
 * `toolsListChanged` chain (list_changed, native reload, reconnect before the next turn,
 * resume or restart) runs once at a time per session, what it chose is published, and a
 * turn waits (bounded) for an agent that refreshes live to list the new tools.
 */
import { isTuttiError, TuttiError } from '../errors/index.js';
import type { PreparedRuntime } from '../contracts/index.js';
import type { RefreshContext, SessionHooks } from './hooks.js';
import type { AgentSessionHostOptions, RefreshRecord } from './host-types.js';
import { hookContext } from './open-session.js';
import { projectSession } from './project-session.js';
import type { AgentProvider } from './provider-contract.js';
import { refreshAction } from './refresh-strategies.js';
import { type SessionEntry, sessionScope } from './session-entry.js';
import type { AgentProbe, SessionOperation } from './session-types.js';

/** How long a turn waits for an agent that refreshes live to re-list after a refresh. */
const RELIST_WAIT_MS = 5_000;

/** What a refresh needs of the host. */
export interface RefreshServices {
  readonly hooks: SessionHooks;
  /** The registered provider of that name, if any. */
  provider(name: string): AgentProvider | undefined;
  /** The registered providers' names, for an error. */
  knownProviders(): string;
  /** A fresh binding of the session (new token, current tools). */
  prepare(entry: SessionEntry, probe: AgentProbe | undefined): Promise<PreparedRuntime>;
  readonly listChangedDelivered: boolean;
  readonly events: AgentSessionHostOptions['events'];
  readonly onProblem: AgentSessionHostOptions['onProblem'];
}

/**
 * Runs the session's refresh chain for registry `version` after any refresh it already
 * runs; resolves with what it recorded (never rejects: a failure is its record).
 */
export function refreshSession(
  services: RefreshServices,
  entry: SessionEntry,
  version: number,
): Promise<RefreshRecord> {
  const provider = services.provider(entry.session.provider);
  const run = async (): Promise<RefreshRecord> => {
    const handle = entry.handle;
    if (!handle || entry.status === 'exited') return { version };
    const providerSessionId = handle.providerSessionId || undefined;
    const context: RefreshContext = Object.freeze({
      session: hookContext(entry, entry.operation, providerSessionId),
      handle,
      version,
      listChangedDelivered: services.listChangedDelivered,
      reproject: async (operation: SessionOperation) => {
        if (!provider) {
          throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN_PROVIDER', {
            provider: entry.session.provider,
            known: services.knownProviders(),
          });
        }
        const runtime = await services.prepare(entry, { httpMcp: true });
        const params = await projectSession(
          services.hooks,
          provider,
          runtime,
          hookContext(entry, operation, providerSessionId),
        );
        return { runtime, params };
      },
    });
    try {
      const chain = services.hooks.toolsListChanged.for(entry.session.provider);
      const strategy = await sessionScope.run(entry.session.agentSessionId, () =>
        chain.promise(context),
      );
      publishRefresh(services, entry, version, strategy);
      return strategy === undefined ? { version } : { version, strategy };
    } catch (error) {
      const message = isTuttiError(error) || error instanceof Error ? error.message : String(error);
      services.onProblem?.(entry.session, `refresh failed: ${message}`);
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

/** Publishes what a refresh did; one the agent cannot take live marks it needs-restart. */
function publishRefresh(
  services: RefreshServices,
  entry: SessionEntry,
  version: number,
  strategy: string | undefined,
): void {
  const { agentSessionId: session, provider } = entry.session;
  if (strategy === 'resume-or-restart') {
    if (entry.mode === 'daemon') entry.status = 'needs-restart';
    entry.reason = 'the tool list changed and this agent cannot take it live: resume or restart it';
    services.events?.publish({
      type: 'session.needs-restart',
      session,
      provider,
      reason: entry.reason,
    });
  }
  services.events?.publish({
    type: 'session.refreshed',
    session,
    provider,
    version,
    strategy: strategy ?? 'none',
    action: refreshAction(strategy, entry.mode),
  });
}

/**
 * Resolves once the session's agent listed the tools its last live refresh (list_changed,
 * native reload) brought, or after a bound wait: the agent re-lists on its own time.
 */
export async function relisted(entry: SessionEntry): Promise<void> {
  const refresh = entry.lastRefresh;
  if (refresh?.strategy !== 'list-changed' && refresh?.strategy !== 'native-reload') return;
  const deadline = Date.now() + RELIST_WAIT_MS;
  while ((entry.toolsListed?.version ?? -1) < refresh.version && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
