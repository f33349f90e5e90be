/**
 * The page's dashboard credential. A login link carries its one-time code in the URL
 * fragment (`/#login=<code>`), which the browser never sends to a server; the page takes
 * it out of the address bar and the tab's history before anything else, and trades it for
 * a session token. The token lives in this tab's `sessionStorage`, which only the
 * dashboard's own origin (scheme, host and port) can read: a page that another program
 * serves on another port of 127.0.0.1 cannot, and the browser sends it to no one by
 * itself (unlike a cookie). It survives a reload and goes with the tab.
 */

const KEY = 'tutti.dashboard.session';

/** The login code of the address, if any, removed from the address bar and history. */
export function takeLoginCode(): string | undefined {
  const hash = location.hash;
  if (hash !== '')
    history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  return hash.startsWith('#login=') ? hash.slice('#login='.length) : undefined;
}

/** The session token of this tab, if it signed in. */
export function sessionToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

/** Keeps `token` as this tab's session. */
export function keepSessionToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

/** Forgets this tab's session. */
export function forgetSessionToken(): void {
  sessionStorage.removeItem(KEY);
}
