/** Runs async tasks one at a time, in call order, whatever each task's outcome. */

/** A function that queues `task` behind every task queued before it. */
export type SerialQueue = <T>(task: () => Promise<T>) => Promise<T>;

/** Creates an empty {@link SerialQueue}. */
export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
