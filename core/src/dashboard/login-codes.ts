/**
 * One-time login codes of the dashboard: random, short-lived, single-use. Only a digest of
 * each code is kept, so the daemon's memory never holds a usable code after it printed it.
 */
import { createHash, randomBytes } from 'node:crypto';

/** How long a login link works (5 minutes). */
export const LOGIN_CODE_TTL_MS = 5 * 60_000;

/** Most codes outstanding at once; issuing one more forgets the oldest. */
const MAX_OUTSTANDING = 16;

/** Issues and redeems one-time codes. */
export interface LoginCodes {
  /** A new code and when it stops working (ms since the epoch). */
  issue(): { code: string; expiresAt: number };
  /** True once for a code issued here and not expired; false for any other string. */
  redeem(code: string): boolean;
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** Codes that expire `ttlMs` after issue; `now` is the clock (tests give their own). */
export function createLoginCodes(options: { ttlMs?: number; now?: () => number } = {}): LoginCodes {
  const ttlMs = options.ttlMs ?? LOGIN_CODE_TTL_MS;
  const now = options.now ?? Date.now;
  const expiries = new Map<string, number>();
  return {
    issue() {
      const code = randomBytes(32).toString('base64url');
      const expiresAt = now() + ttlMs;
      if (expiries.size >= MAX_OUTSTANDING) expiries.delete(expiries.keys().next().value as string);
      expiries.set(digest(code), expiresAt);
      return { code, expiresAt };
    },
    redeem(code) {
      const key = digest(code);
      const expiresAt = expiries.get(key);
      expiries.delete(key);
      return expiresAt !== undefined && now() < expiresAt;
    },
  };
}
