/**
 * Daemon-driven sessions across a daemon restart: how a recorded session comes back, a few
 * at a time and all within a deadline. One that had no turn is started afresh; one that
 * had is resumed when the provider can, else loaded; one that cannot come back is listed
 * `needs-restart` with every reason, and a restart of it resumes, loads or starts it afresh.
 */
import { TuttiError } from '../errors/index.js';
import type { AgentSessionHostOptions, AgentSessionInfo } from './host-types.js';
import { supports } from './operations.js';
import { restoreRequest } from './recorded-session.js';
import type { SessionCore } from './session-core.js';
import type { StoredSession } from './session-records.js';
import type { SessionOperation } from './session-types.js';

/** Recorded sessions brought back at once after a restart (each spawns an agent). */
const RESTORE_CONCURRENCY = 4;

/** How a session came back: resumed or loaded with its history, or started afresh. */
export type CameBackAs = 'resumed' | 'loaded' | 'fresh';

/**
 * Brings `session` (listed `needs-restart` with its record, `stored`) back after a daemon
 * restart, with a fresh binding and token; one that cannot come back by `within.deadline`
 * stays `needs-restart` with the reasons.
 */
export async function restoreSession(
  session: SessionCore,
  stored: StoredSession,
  within: { readonly deadline: number; readonly ms: number },
): Promise<AgentSessionInfo> {
  const remaining = () => within.deadline - Date.now();
  if (remaining() <= 0) {
    const late = `the daemon's start could not bring it back within ${within.ms / 1000} s`;
    return needsRestart(session, stored, [late]);
  }
  const timeoutMs = () => Math.max(1, Math.min(session.timeoutMs, remaining()));
  const back = await comeBack(session, stored, false, timeoutMs);
  return 'info' in back ? back.info : needsRestart(session, stored, back.reasons);
}

/**
 * Restarts a session listed `needs-restart`: resumed or loaded when its agent can, else
 * started afresh with the same id, settings and permissions; it takes a live slot again.
 */
export async function restartSession(
  session: SessionCore,
): Promise<AgentSessionInfo & { readonly restartedAs: CameBackAs }> {
  const { stored } = session;
  if (session.status !== 'needs-restart' || !stored) {
    throw new TuttiError('TUTTI_ERR_SESSION_NOT_RESTARTABLE', {
      session: session.id,
      status: session.status,
    });
  }
  const back = await comeBack(session, stored, true);
  if ('info' in back) return { ...back.info, restartedAs: back.as };
  needsRestart(session, stored, back.reasons, 'the session could not be restarted');
  throw new TuttiError('TUTTI_ERR_SESSION_RESTART_FAILED', {
    session: session.id,
    reason: back.reasons.join('; '),
  });
}

/**
 * Starts the session again, each attempt a new run within `timeoutMs()`: afresh when it had
 * no turn (or, with `orFresh`, when nothing else works), else resumed or loaded.
 */
async function comeBack(
  session: SessionCore,
  stored: StoredSession,
  orFresh: boolean,
  timeoutMs?: () => number,
): Promise<{ info: AgentSessionInfo; as: CameBackAs } | { reasons: string[] }> {
  const { record } = stored;
  const provider = session.parts.providers.get(record.provider);
  if (!provider) return { reasons: [`no provider named "${record.provider}" is registered`] };
  const reasons: string[] = [];
  const attempt = async (operation: SessionOperation, as: CameBackAs) => {
    try {
      session.become('starting');
      session.renew(operation !== 'new');
      const info = await session.open(provider, restoreRequest(stored), operation, {
        ...(operation === 'new' ? {} : { providerSessionId: record.providerSessionId }),
        startedAt: operation === 'new' ? new Date().toISOString() : record.startedAt,
        ...(timeoutMs ? { timeoutMs: timeoutMs() } : {}),
      });
      session.stored = undefined;
      return { info, as };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      reasons.push(`${operation}: ${message.replace(/[.\s]+$/, '')}`);
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
      if (!supports(provider, operation)) continue;
      const back = await attempt(operation, as);
      if (back) return back;
    }
    if (reasons.length === 0) {
      reasons.push(`provider "${record.provider}" can neither resume nor load`);
    }
  }
  if (orFresh) return (await attempt('new', 'fresh')) ?? { reasons };
  return { reasons };
}

/** Lists the session `needs-restart` with `reasons`, keeping what restarts it. */
function needsRestart(
  session: SessionCore,
  stored: StoredSession,
  reasons: readonly string[],
  lead = 'the session could not come back after the daemon restarted',
): AgentSessionInfo {
  session.renew(false);
  session.become('needs-restart');
  session.operation = 'resume';
  session.reason = `${lead}: ${reasons.join('; ')}`;
  session.stored = stored;
  session.publish({ type: 'session.needs-restart', reason: session.reason });
  return session.info();
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
