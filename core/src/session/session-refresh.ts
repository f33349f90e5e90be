/**
 * The refresh queue of one session: its refreshes run one at a time, in order, and the
 * last one's outcome is kept; a turn waits for the refresh the session owes, and (bounded)
 * for an agent that refreshes live to list the new tools.
 */
import type { RefreshRecord } from './host-types.js';

/** How long a turn waits for an agent that refreshes live to re-list after a refresh. */
const RELIST_WAIT_MS = 5_000;

export class RefreshQueue {
  #running: Promise<unknown> = Promise.resolve();
  #last: RefreshRecord | undefined;

  /** The outcome of the last refresh, once one ran. */
  get last(): RefreshRecord | undefined {
    return this.#last;
  }

  /** Runs `refresh` after any refresh already queued; resolves with what it recorded. */
  run(refresh: () => Promise<RefreshRecord>): Promise<RefreshRecord> {
    const next = this.#running.then(refresh, refresh);
    this.#running = next;
    return next.then((record) => {
      this.#last = record;
      return record;
    });
  }

  /** Resolves once every queued refresh has settled. */
  settled(): Promise<void> {
    return this.#running.then(
      () => {},
      () => {},
    );
  }

  /**
   * Resolves once the agent listed (`listedVersion()`) the tools the last live refresh
   * (list_changed, native reload) brought, or after a bound wait: the agent re-lists on
   * its own time.
   */
  async relisted(listedVersion: () => number): Promise<void> {
    const refresh = this.#last;
    if (refresh?.strategy !== 'list-changed' && refresh?.strategy !== 'native-reload') return;
    const deadline = Date.now() + RELIST_WAIT_MS;
    while (listedVersion() < refresh.version && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
