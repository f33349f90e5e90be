/** Runs an async task on demand with at most one run in flight and one pending. */

/** Handle of {@link createCoalescingRunner}. */
export interface CoalescingRunner {
  /** Requests a run: starts one now, or marks one pending behind the run in flight. */
  trigger(): void;
  /** Resolves when no run is in flight or pending. */
  idle(): Promise<void>;
}

/**
 * Coalesces bursts of triggers: N triggers during one run cause exactly one more run.
 * @example const relist = createCoalescingRunner(async () => publish(await list()));
 */
export function createCoalescingRunner(task: () => Promise<void>): CoalescingRunner {
  let running: Promise<void> | undefined;
  let pending = false;

  const loop = async () => {
    do {
      pending = false;
      try {
        await task();
      } catch {
        // The task reports its own failures; the runner only sequences.
      }
    } while (pending);
    running = undefined;
  };

  return {
    trigger() {
      if (running) pending = true;
      else running = loop();
    },
    async idle() {
      while (running) await running;
    },
  };
}
