/**
 * `tuttid dashboard`: a fresh one-time login link of the dashboard of the daemon running
 * for a home (`POST /v1/dashboard/login`), for when the banner's link was used, expired or
 * scrolled away: no curl and no control token to copy.
 */
import { TuttiError } from '@tutti/core/client';
import type { DaemonConnection } from '../daemon-client.js';

/** What `tuttid dashboard --json` prints. */
export interface DashboardLogin {
  /** `http://127.0.0.1:<port>/#login=<code>`: works once. */
  readonly url: string;
  /** When the link stops working, in ms since the epoch. */
  readonly expiresAt: number;
}

/** Asks the daemon for a new login link. */
export async function fetchDashboardLogin(daemon: DaemonConnection): Promise<DashboardLogin> {
  const body = (await daemon.call('POST', '/v1/dashboard/login')) as Partial<DashboardLogin> | null;
  if (typeof body?.url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+\/#login=/.test(body.url)) {
    throw new TuttiError('TUTTI_ERR_CLI_DAEMON_BAD_RESPONSE');
  }
  if (typeof body.expiresAt !== 'number') throw new TuttiError('TUTTI_ERR_CLI_DAEMON_BAD_RESPONSE');
  return { url: body.url, expiresAt: body.expiresAt };
}

/** The human form: the link alone on its line (to copy), then how long it works. */
export function renderDashboardLogin(login: DashboardLogin, now = Date.now()): string {
  const minutes = Math.max(1, Math.round((login.expiresAt - now) / 60_000));
  const until = new Date(login.expiresAt).toLocaleTimeString();
  return [
    login.url,
    `(a one-time login link: open it once, in a browser on this machine, within ${minutes} minutes, until ${until})`,
    '',
  ].join('\n');
}
