/**
 * DNS-rebinding guards of the loopback server: the Host must name a loopback address with
 * the server's own port, and the Origin must be absent, `null` or loopback. (The bearer
 * token is checked by session-cache.ts.)
 */
import { TuttiError } from '../errors/index.js';

const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})$/i;
const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Longest header value echoed back in an error message. */
const ECHO_LIMIT = 100;

function echo(value: string): string {
  return value.length > ECHO_LIMIT ? `${value.slice(0, ECHO_LIMIT)}...` : value;
}

/** TUTTI_ERR_SERVER_BAD_HOST unless `host` is `<loopback name>:<port>`. */
export function checkHost(host: string | undefined, port: number): TuttiError | undefined {
  const match = host === undefined ? null : LOOPBACK_HOST.exec(host);
  if (match && Number(match[1]) === port) return undefined;
  return new TuttiError('TUTTI_ERR_SERVER_BAD_HOST', { host: echo(host ?? ''), port });
}

/** TUTTI_ERR_SERVER_BAD_ORIGIN unless `origin` is absent, `null` or an http(s) loopback origin. */
export function checkOrigin(origin: string | undefined): TuttiError | undefined {
  if (origin === undefined || origin === 'null') return undefined;
  try {
    const url = new URL(origin);
    if (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      LOOPBACK_HOSTNAMES.has(url.hostname)
    ) {
      return undefined;
    }
  } catch {
    // Not a URL: refused below.
  }
  return new TuttiError('TUTTI_ERR_SERVER_BAD_ORIGIN', { origin: echo(origin) });
}
