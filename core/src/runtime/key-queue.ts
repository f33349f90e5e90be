/** Runs tasks one at a time per key, and different keys in parallel. */

/** A per-key serial executor. */
export interface KeyQueue {
  /** Runs `task` after every task queued before it for `key`; resolves with its result. */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Resolves when every task queued so far has settled. */
  idle(): Promise<void>;
}

/** Creates an empty {@link KeyQueue}. */
export function createKeyQueue(): KeyQueue {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    async idle() {
      while (tails.size > 0) await Promise.all([...tails.values()]);
    },
  };
}
