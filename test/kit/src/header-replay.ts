/**
 * What a local program that is not a browser can do with what a browser sent it: replay
 * the headers it received (cookies, referrer, client hints...) against another server of
 * 127.0.0.1, forging every `Origin` and `Sec-Fetch-Site` it likes, and offering every
 * string it saw as a bearer token and as a cookie. For the dashboard's browser test.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** A request that a local server received: its headers and body. */
export interface SeenRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One request to replay: method, path and an optional JSON body. */
export type Attempt = readonly [method: string, path: string, body?: string];

/** Headers a program cannot or need not copy from a request it received. */
const UNCOPIED = new Set(['host', 'connection', 'content-length', 'accept-encoding']);

/** Every string in `value` (a header, a JSON body), and each `name=value`'s value. */
function strings(value: unknown, into: Set<string>): void {
  if (typeof value === 'string' && value !== '') {
    into.add(value);
    for (const part of value.split(/[;,\s]+/)) {
      const eq = part.indexOf('=');
      if (eq > 0) into.add(part.slice(eq + 1));
    }
  } else if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) strings(inner, into);
  }
}

/** The header sets a program would try with what it saw, against the server at `target`. */
export function forgedHeaders(
  target: string,
  seen: readonly SeenRequest[],
): Record<string, string>[] {
  const variants: Record<string, string>[] = [];
  for (const { headers } of seen) {
    const copy: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (!UNCOPIED.has(name) && value !== undefined) copy[name] = String(value);
    }
    for (const origin of [target, copy.origin, 'null', undefined]) {
      for (const site of ['same-origin', 'same-site', 'none', undefined]) {
        const forged: Record<string, string> = {
          ...copy,
          'sec-fetch-mode': 'cors',
          'sec-fetch-dest': 'empty',
        };
        delete forged.origin;
        delete forged['sec-fetch-site'];
        if (origin !== undefined) forged.origin = origin;
        if (site !== undefined) forged['sec-fetch-site'] = site;
        variants.push(forged);
      }
    }
  }
  const candidates = new Set<string>();
  for (const { headers, body } of seen) {
    strings(headers.cookie, candidates);
    strings(headers.referer, candidates);
    if (body) strings(JSON.parse(body), candidates);
  }
  const port = new URL(target).port;
  for (const value of candidates) {
    const own = { origin: target, 'sec-fetch-site': 'same-origin' };
    variants.push({ ...own, authorization: `Bearer ${value}` });
    variants.push({ ...own, cookie: `tutti_dashboard_${port}=${value}` });
  }
  return variants;
}

/** Sends every attempt with every header set to `target`; the status of each. */
export async function replay(
  target: string,
  variants: readonly Record<string, string>[],
  attempts: readonly Attempt[],
): Promise<{ what: string; status: number }[]> {
  const statuses: { what: string; status: number }[] = [];
  for (const headers of variants) {
    for (const [method, path, body] of attempts) {
      const abort = new AbortController();
      const answer = await fetch(`${target}${path}`, {
        method,
        headers: { ...headers, ...(body && { 'content-type': 'application/json' }) },
        ...(body && { body }),
        signal: abort.signal,
      });
      // Not read: a stream that opened would never end.
      abort.abort();
      const names = Object.keys(headers).join(',');
      statuses.push({
        what: `${method} ${path} origin=${headers.origin} site=${headers['sec-fetch-site']} ${names}`,
        status: answer.status,
      });
    }
  }
  return statuses;
}
