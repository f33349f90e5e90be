/**
 * The store's two time limits: how long one change may hold the store (its serial queue),
 * and how long reading one release folder for an install may take. Either ends in
 * TUTTI_ERR_STORE_TIMEOUT.
 */
import { TuttiError } from '../errors/index.js';
import { withTimeLimit } from './serial-queue.js';

/** Longest a single store change may hold the store (default 30 s). */
export const DEFAULT_OPERATION_TIMEOUT_MS = 30_000;
/** Longest the copy of one release may take (default 120 s). */
export const DEFAULT_INSTALL_TIMEOUT_MS = 120_000;

/** The error of `operation` on `what` that took longer than `ms`. */
export function storeTimeout(operation: string, ms: number, what: string): () => TuttiError {
  return () =>
    new TuttiError('TUTTI_ERR_STORE_TIMEOUT', {
      operation,
      seconds: Math.round(ms / 100) / 10,
      what,
    });
}

/**
 * Runs `read` of the release folder `source` outside the store's queue (a slow or hostile
 * source folder holds up nothing else), within `ms`: what is left of the install time
 * limit `installMs`.
 */
export function readWithinInstallLimit<T>(
  source: string,
  ms: number,
  installMs: number,
  read: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return withTimeLimit(
    read,
    Math.max(ms, 0),
    storeTimeout(`the copy of "${source}"`, installMs, 'the release folder'),
  );
}
