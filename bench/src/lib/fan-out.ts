/**
 * list_changed fan-out: `count` `subscriptions/listen` listeners on a connector server, a
 * visible change committed `bumps` times, and for every delivery the arrival minus the
 * commit, both read from the system-wide monotonic clock.
 */
import { openListeners } from '../clients/listen-streams.js';
import { type Summary, summarize } from './measure-calls.js';
import type { ConnectorChild } from './targets.js';

/** Arrival minus commit (ms) of `count` listeners over `bumps` changes of `server`, summarized. */
export async function fanOut(
  server: ConnectorChild,
  { count = 100, bumps = 40 } = {},
): Promise<Summary> {
  const delays: number[] = [];
  let waiting: ((at: bigint) => void) | undefined;
  const listeners = await openListeners(server, count, (_index, at) => waiting?.(at));
  try {
    for (let bump = 0; bump < bumps; bump += 1) {
      const arrivals: bigint[] = [];
      const all = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${arrivals.length} of ${count} listeners got list_changed`)),
          10_000,
        );
        waiting = (at) => {
          arrivals.push(at);
          if (arrivals.length === count) {
            clearTimeout(timer);
            resolve();
          }
        };
      });
      const committedAt = await server.bump();
      await all;
      for (const at of arrivals) delays.push(Number(at - committedAt) / 1e6);
    }
  } finally {
    waiting = undefined;
    listeners.close();
  }
  return summarize(delays);
}
