/**
 * The dashboard's sessions: a random bearer token that the page keeps in its tab's
 * `sessionStorage` (readable by the dashboard's own origin only: scheme, host and port) and
 * sends in `Authorization` on every call. No cookie: a browser sends nothing of it to
 * another port. The daemon keeps only a digest of each token, in memory (a restart ends
 * every session). Each session has a signal that aborts when it ends (logout, expiry,
 * or revocation by the session cap), so what it opened, an event stream, ends with it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { type Clock, systemClock } from './clock.js';

/** Longest a dashboard session lasts (12 hours), whatever the page does. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;

/** Most sessions held at once; one more ends the oldest. */
export const MAX_SESSIONS = 64;

/** Why a session ended: its logout, its 12 hours, or a newer login over the cap. */
export type SessionEnd = 'logout' | 'expired' | 'revoked';

/** A live session. */
export interface DashboardSession {
  /** When it expires (ms since the epoch). */
  readonly expiresAt: number;
  /** Aborts, with its {@link SessionEnd} as the reason, when the session ends. */
  readonly ended: AbortSignal;
}

/** The sessions of one daemon. */
export interface DashboardSessions {
  /** Starts a session: its token (given to the page once, never kept) and its expiry. */
  start(): { token: string; expiresAt: number };
  /** The live session of `token`, if any. */
  find(token: string | undefined): DashboardSession | undefined;
  /** Ends the session of `token` (a logout); false when there was none. */
  end(token: string | undefined): boolean;
}

interface Entry extends DashboardSession {
  readonly abort: AbortController;
  readonly cancelExpiry: () => void;
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** Sessions that last `ttlMs` on `clock`. */
export function createDashboardSessions(
  clock: Clock = systemClock,
  ttlMs = SESSION_TTL_MS,
): DashboardSessions {
  const entries = new Map<string, Entry>();
  const finish = (key: string, reason: SessionEnd) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    entry.cancelExpiry();
    entry.abort.abort(reason);
  };
  const lookup = (token: string | undefined) => {
    if (!token) return undefined;
    const key = digest(token);
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (clock.now() < entry.expiresAt) return { key, entry };
    finish(key, 'expired');
    return undefined;
  };
  return {
    start() {
      const oldest = entries.keys().next().value;
      if (entries.size >= MAX_SESSIONS && oldest !== undefined) finish(oldest, 'revoked');
      const token = randomBytes(32).toString('base64url');
      const key = digest(token);
      const abort = new AbortController();
      // One listener per open stream of the session; a tab may open several.
      setMaxListeners(0, abort.signal);
      const expiresAt = clock.now() + ttlMs;
      const cancelExpiry = clock.later(ttlMs, () => finish(key, 'expired'));
      entries.set(key, { expiresAt, ended: abort.signal, abort, cancelExpiry });
      return { token, expiresAt };
    },
    find: (token) => lookup(token)?.entry,
    end(token) {
      const live = lookup(token);
      if (live) finish(live.key, 'logout');
      return live !== undefined;
    },
  };
}
