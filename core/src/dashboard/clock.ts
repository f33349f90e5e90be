/**
 * The dashboard's time: what time it is, and running something later. Its sessions expire
 * through it, so a test can move time on and see what ends, without waiting.
 */

/** A time source with timers. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `run` after `ms` milliseconds; answers the function that cancels it. */
  later(ms: number, run: () => void): () => void;
}

/** The system clock; its timers never keep the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  later(ms, run) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
