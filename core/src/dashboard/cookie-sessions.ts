/**
 * The dashboard's browser sessions: a random id in an HttpOnly, SameSite=Strict cookie,
 * known only to this daemon's memory (a restart ends every one). Cookies are not scoped by
 * port, so the cookie's name carries the control port: two daemons on one machine keep
 * their sessions apart.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Longest a dashboard session lasts (12 hours), whatever the browser does. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;

/** Most sessions held at once; one more ends the oldest. */
const MAX_SESSIONS = 64;

/** Browser sessions of one daemon. */
export interface CookieSessions {
  /** The cookie's name (carries the port). */
  readonly cookieName: string;
  /** Starts a session; answers the `Set-Cookie` value. */
  start(): string;
  /** True when the request's `Cookie` header holds a live session. */
  verify(cookieHeader: string | undefined): boolean;
  /** Ends the session of the `Cookie` header, if any; answers the clearing `Set-Cookie`. */
  end(cookieHeader: string | undefined): string;
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** The value of cookie `name` in a `Cookie` header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Sessions whose cookie is named after `port`; `now` is the clock. */
export function createCookieSessions(
  port: () => number,
  now: () => number = Date.now,
): CookieSessions {
  const expiries = new Map<string, number>();
  const name = () => `tutti_dashboard_${port()}`;
  const attributes = 'Path=/; HttpOnly; SameSite=Strict';
  return {
    get cookieName() {
      return name();
    },
    start() {
      const id = randomBytes(32).toString('base64url');
      if (expiries.size >= MAX_SESSIONS) expiries.delete(expiries.keys().next().value as string);
      expiries.set(digest(id), now() + SESSION_TTL_MS);
      return `${name()}=${id}; ${attributes}`;
    },
    verify(header) {
      const id = cookieValue(header, name());
      if (!id) return false;
      const expiresAt = expiries.get(digest(id));
      if (expiresAt === undefined) return false;
      if (now() < expiresAt) return true;
      expiries.delete(digest(id));
      return false;
    },
    end(header) {
      const id = cookieValue(header, name());
      if (id) expiries.delete(digest(id));
      return `${name()}=; ${attributes}; Max-Age=0`;
    },
  };
}
