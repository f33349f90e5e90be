/**
 * Daemon-driven sessions across a daemon restart: the record a started session keeps, and
 * how recorded sessions come back, a few at a time and all within a deadline: one that had
 * no turn is started afresh; one that had is resumed when the provider can, else loaded;
 * one that cannot come back is listed `needs-restart` with every reason, and a restart of
 * it resumes, loads or starts it afresh.
 */
import type {
  AgentSessionHostOptions,
  AgentSessionInfo,
  StartSessionRequest,
} from './host-types.js';
import type { AgentProvider } from './provider-contract.js';
import type { SessionEntry } from './session-entry.js';
import type { SessionRecord, StoredSession } from './session-records.js';

/** Recorded sessions brought back at once after a restart (each spawns an agent). */
const RESTORE_CONCURRENCY = 4;

/** The record of a started daemon-driven session (no secret: its env is stored apart). */
export function sessionRecordOf(
  entry: SessionEntry,
  request: StartSessionRequest,
  providerSessionId: string,
  startedAt: string,
): SessionRecord {
  return {
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
    turns: entry.turns,
  };
}

/** How a session came back: resumed or loaded with its history, or started afresh. */
export type CameBackAs = 'resumed' | 'loaded' | 'fresh';

/** The start request that brings a recorded session back. */
export function restoreRequest(stored: StoredSession): StartSessionRequest {
  const { record } = stored;
  return {
    provider: record.provider,
    workspaceId: record.workspaceId,
    cwd: record.cwd,
    env: stored.env,
    agentSessionId: record.agentSessionId,
    permissions: record.permissions,
    settings: record.settings,
    launch: { ...record.launch, env: stored.launchEnv },
  };
}

/** What bringing one session back needs of the host. */
export interface RestoreServices {
  provider(name: string): AgentProvider | undefined;
  /**
   * Starts the session again through `operation` (`new`: afresh, same id and settings),
   * within `timeoutMs`.
   */
  start(
    request: StartSessionRequest,
    operation: 'new' | 'resume' | 'load',
    providerSessionId: string | undefined,
    startedAt: string,
    timeoutMs: number | undefined,
  ): Promise<AgentSessionInfo>;
}

/** A session brought back, or why it could not be. */
export type ComeBack =
  | { readonly info: AgentSessionInfo; readonly as: CameBackAs }
  | { readonly reasons: readonly string[] };

/**
 * Brings one recorded session back: afresh when it had no turn (or, with `orFresh`, when
 * nothing else works), else resumed or loaded. `timeoutMs` bounds each attempt.
 */
export async function comeBack(
  services: RestoreServices,
  stored: StoredSession,
  options: { readonly orFresh: boolean; readonly timeoutMs?: () => number | undefined },
): Promise<ComeBack> {
  const { record } = stored;
  const request = restoreRequest(stored);
  const provider = services.provider(record.provider);
  if (!provider) return { reasons: [`no provider named "${record.provider}" is registered`] };
  const reasons: string[] = [];
  const attempt = async (operation: 'new' | 'resume' | 'load', as: CameBackAs) => {
    try {
      const info = await services.start(
        request,
        operation,
        operation === 'new' ? undefined : record.providerSessionId,
        operation === 'new' ? new Date().toISOString() : record.startedAt,
        options.timeoutMs?.(),
      );
      return { info, as };
    } catch (error) {
      reasons.push(
        `${operation}: ${(error instanceof Error ? error.message : String(error)).replace(/[.\s]+$/, '')}`,
      );
      return undefined;
    }
  };
  if (!record.turns) return (await attempt('new', 'fresh')) ?? { reasons };
  if (!record.providerSessionId) reasons.push('the agent never named its session');
  else {
    for (const [operation, as] of [
      ['resume', 'resumed'],
      ['load', 'loaded'],
    ] as const) {
      if (!(operation === 'resume' ? provider.resumeSession : provider.loadSession)) continue;
      const back = await attempt(operation, as);
      if (back) return back;
    }
    if (reasons.length === 0)
      reasons.push(`provider "${record.provider}" can neither resume nor load`);
  }
  if (options.orFresh) return (await attempt('new', 'fresh')) ?? { reasons };
  return { reasons };
}

/** How one recorded session fared. */
export interface RestoreResult {
  readonly stored: StoredSession;
  readonly info?: AgentSessionInfo;
  readonly error?: unknown;
}

/**
 * Brings back every stored session with `restoreOne`, RESTORE_CONCURRENCY at a time, then
 * publishes `sessions.restored` with how many came back.
 */
export async function restoreAll(
  stored: readonly StoredSession[],
  restoreOne: (session: StoredSession) => Promise<AgentSessionInfo>,
  events: AgentSessionHostOptions['events'],
): Promise<RestoreResult[]> {
  const results: RestoreResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < stored.length) {
      const session = stored[next++]!;
      try {
        results.push({ stored: session, info: await restoreOne(session) });
      } catch (error) {
        results.push({ stored: session, error });
      }
    }
  };
  const workers = Math.min(RESTORE_CONCURRENCY, stored.length);
  await Promise.all(Array.from({ length: workers }, worker));
  const ready = results.filter((result) => result.info?.status === 'ready').length;
  events?.publish({
    type: 'sessions.restored',
    resumed: ready,
    needsRestart: results.length - ready,
  });
  return results;
}
