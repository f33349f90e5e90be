/**
 * How long a test waits for what a daemon or an agent does (a session listed, restored or
 * ended, a process group gone, an event on the stream): a bound for a busy machine, never
 * a time a test measures. A wait ends as soon as what it waits for happened, so the bound
 * costs nothing when the machine is idle; at load 5-7 a restored opencode session took
 * longer than the 30 s bound this replaced.
 */

/** The bound of every wait for an event, in milliseconds. */
export const WAIT_BOUND_MS = 120_000;

/** `expect.poll` options that wait up to {@link WAIT_BOUND_MS}. */
export const WAIT = Object.freeze({ timeout: WAIT_BOUND_MS, interval: 50 });
