/**
 * A clock for the dashboard's tests: time moves only when the test says so, and moving it
 * runs every timer that became due, in order.
 */
import type { Clock } from '@tutti/core/internal';

/** A {@link Clock} the test moves with `advance`. */
export interface ManualClock extends Clock {
  /** Moves time on by `ms` and runs the timers due by then. */
  advance(ms: number): void;
}

/** A manual clock that starts at `start`. */
export function createManualClock(start = 1_000_000): ManualClock {
  let time = start;
  const timers = new Set<{ at: number; run: () => void }>();
  return {
    now: () => time,
    later(ms, run) {
      const timer = { at: time + ms, run };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance(ms) {
      time += ms;
      for (;;) {
        const due = [...timers].filter((t) => t.at <= time).sort((a, b) => a.at - b.at)[0];
        if (!due) return;
        timers.delete(due);
        due.run();
      }
    },
  };
}
