/**
 * Runs async tasks one at a time, in call order, whatever each task's outcome, with a time
 * limit per task: a task still running at its limit is told to stop (its signal aborts),
 * its caller gets the limit's error, and the next task starts. A task must check its
 * signal before each change it makes, so an abandoned task changes nothing after that.
 */

/** A function that queues `task` behind every task queued before it. */
export type SerialQueue = <T>(task: (signal: AbortSignal) => Promise<T>) => Promise<T>;

/** Options of {@link createSerialQueue}. */
export interface SerialQueueOptions {
  /** Longest time one task may hold the queue, in ms (default: no limit). */
  readonly timeoutMs?: number;
  /** The error a task that reached its limit is rejected with. */
  readonly timeoutError?: () => Error;
}

/** Runs `task` with a signal that aborts after `timeoutMs`, rejecting then with `error()`. */
export async function withTimeLimit<T>(
  task: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number | undefined,
  error: () => Error,
): Promise<T> {
  const controller = new AbortController();
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs)) return task(controller.signal);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const reason = error();
      controller.abort(reason);
      reject(reason);
    }, timeoutMs);
  });
  const running = task(controller.signal);
  // An abandoned task's own late failure is expected: keep it from going unhandled.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** Creates an empty {@link SerialQueue}. */
export function createSerialQueue(options: SerialQueueOptions = {}): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  const error = options.timeoutError ?? (() => new Error('the task ran past its time limit'));
  return <T>(task: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const timed = () => withTimeLimit(task, options.timeoutMs, error);
    const run = tail.then(timed, timed);
    tail = run.catch(() => undefined);
    return run;
  };
}
