/**
 * When a connector starts again after a start failed or its upstream ended: at once after
 * a healthy run, else backed off, a remote (HTTP) server at most REMOTE_RETRY_MS apart (it
 * comes back soon after its server does). After `parkAfter` failed starts in a row it
 * parks instead, with no retry until a change, a daemon restart or `retry`; a remote
 * server that ran never parks.
 */
import { backoffDelay } from './backoff.js';
import type { ConnectorServices } from './connector-services.js';
import type { RuntimeEntry } from './runtime-entry.js';

/** Longest wait between two retries of a remote (HTTP) server. */
export const REMOTE_RETRY_MS = 5_000;

/** The connector a retry is scheduled for. */
export interface RetryTarget {
  readonly key: string;
  /** A start of it succeeded in this daemon's life (a remote server that ran never parks). */
  readonly ran: boolean;
  /** Starts it again (run on its queue). */
  retry(): Promise<void>;
}

/** Why a retry is scheduled. */
export interface RetryCause {
  /** Its upstream ended after a healthy run: start again at once, the count reset. */
  readonly afterHealthyRun?: boolean;
  /** A start failed: it counts towards parking. */
  readonly startFailed?: boolean;
}

/** What scheduling needs of the connector's services. */
export type RetryServices = Pick<
  ConnectorServices,
  'closed' | 'parkAfter' | 'backoff' | 'record' | 'enqueue'
>;

/**
 * Schedules the next start of `entry` of `target`: at once after a healthy run, else
 * backed off (a remote server at most REMOTE_RETRY_MS apart). After a start that failed it
 * parks it instead once `parkAfter` starts in a row failed, unless it is a remote server
 * that ran. Answers the delay (-1 when parked).
 */
export function scheduleRetry(
  entry: RuntimeEntry,
  target: RetryTarget,
  services: RetryServices,
  { afterHealthyRun = false, startFailed = false }: RetryCause = {},
): number {
  const { key } = target;
  if (services.closed()) return 0;
  if (afterHealthyRun) entry.failures = 0;
  else entry.failures++;
  if (startFailed) entry.failedStarts++;
  const remote = entry.connector.paths.mcp?.transport === 'http';
  if (startFailed && entry.failedStarts >= services.parkAfter && !(remote && target.ran)) {
    clearTimeout(entry.timer);
    if (!entry.parked) {
      entry.parked = true;
      services.record(
        key,
        'parked',
        entry.generation,
        `did not start ${entry.failedStarts} times in a row: no retry until a new release, a credential change, a daemon restart or POST /v1/connectors/${key}/retry`,
      );
    }
    return -1;
  }
  const backedOff = afterHealthyRun ? 0 : backoffDelay(entry.failures, services.backoff);
  const delay = remote ? Math.min(backedOff, REMOTE_RETRY_MS) : backedOff;
  clearTimeout(entry.timer);
  entry.timer = setTimeout(() => services.enqueue(key, () => target.retry()), delay);
  entry.timer.unref();
  return delay;
}

/** Starts the count of failures afresh (a new release or credential, or `retry`): unparked. */
export function clearFailures(entry: RuntimeEntry): void {
  entry.failures = 0;
  entry.failedStarts = 0;
  entry.parked = false;
}
