/** Restart delays of a failing upstream: exponential, capped, with a little jitter. */

/** Backoff settings in milliseconds. */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

/** Default: 500 ms, doubling, at most 30 s. */
export const DEFAULT_BACKOFF: Readonly<BackoffOptions> = Object.freeze({
  initialMs: 500,
  maxMs: 30_000,
});

/** Delay before attempt `failures` (1 = first retry), with up to 10% jitter. */
export function backoffDelay(failures: number, options: BackoffOptions, random = Math.random) {
  const base = Math.min(options.maxMs, options.initialMs * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (1 + random() * 0.1));
}
