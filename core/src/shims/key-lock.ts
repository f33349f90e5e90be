/**
 * Serializes publish and remove of one shim path inside this process, so a check of the
 * published generation and the rename or unlink that follows it cannot interleave.
 */
const tails = new Map<string, Promise<unknown>>();

/** Runs `task` after every earlier task queued for `lockKey` has settled. */
export async function withKeyLock<T>(lockKey: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(lockKey) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.catch(() => undefined);
  tails.set(lockKey, tail);
  try {
    return await run;
  } finally {
    if (tails.get(lockKey) === tail) tails.delete(lockKey);
  }
}
