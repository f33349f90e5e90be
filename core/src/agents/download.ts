/**
 * Downloads for the installer: only `https:`, or `http:` to this machine (127.0.0.1,
 * localhost, [::1]); every redirect is checked the same way, and one from `https:` must
 * stay on `https:`. A file is hashed (SHA-256)
 * while it is written, capped in size, and given up when its server stops sending. Messages show the address without its query
 * (a signed URL's token stays out of errors and logs).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { TuttiError } from '../errors/index.js';

/** The largest archive the installer downloads (1 GiB). */
export const MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024;
/** The largest document (index, versions.json, signature) it reads (16 MiB). */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 10 * 60 * 1000;
const MAX_REDIRECTS = 5;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** An address fit for a message: no credentials, no query, no fragment. */
export function shownUrl(url: string | URL): string {
  try {
    const parsed = new URL(String(url));
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return String(url)
      .replace(/[?#].*$/s, '')
      .slice(0, 300);
  }
}

function failed(url: string | URL, reason: string): TuttiError {
  return new TuttiError('TUTTI_ERR_AGENT_DOWNLOAD_FAILED', { url: shownUrl(url), reason });
}

/** Checks an address against the download rules; refuses with the reason. */
export function checkDownloadUrl(url: string, base?: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch {
    throw failed(url, 'it is not a URL');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw failed(parsed, 'it carries credentials in the address, which tutti does not send');
  }
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname)) return parsed;
  if (parsed.protocol === 'http:') {
    throw failed(
      parsed,
      'plain http is allowed only to this machine (127.0.0.1, localhost): use https',
    );
  }
  throw failed(parsed, `the scheme ${parsed.protocol} is not allowed: use https`);
}

/**
 * Checks a redirect of a download that started at `original`: the download rules, and
 * plain http (to this machine) only when the original address was plain http already, so
 * an https source cannot send the daemon to a local service.
 */
export function checkRedirect(original: URL, current: URL, location: string): URL {
  const next = checkDownloadUrl(location, current.href);
  if (next.protocol === 'http:' && original.protocol !== 'http:') {
    throw failed(
      next,
      `the https address ${shownUrl(original)} redirected to it, and tutti follows a redirect to plain http only from an http address on this machine`,
    );
  }
  return next;
}

/** Fetches `url`, following checked redirects; the answer is a 2xx with a body. */
async function get(url: URL, signal: AbortSignal, aborted: () => string): Promise<Response> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let response: Response;
    try {
      response = await fetch(current, { redirect: 'manual', signal });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw failed(
        current,
        signal.aborted
          ? aborted()
          : `it could not be fetched (${cause ?? (error as Error).message})`,
      );
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      current = checkRedirect(url, current, location);
      continue;
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw failed(current, `the server answered HTTP ${response.status}`);
    }
    return response;
  }
  throw failed(url, `it redirected more than ${MAX_REDIRECTS} times`);
}

/** How long a download may take, and how long its server may send nothing. */
export interface DownloadLimits {
  /** The most bytes read before it is refused. */
  readonly maxBytes?: number;
  /** The whole download (default 10 minutes). */
  readonly totalMs?: number;
  /** A server that sends nothing for this long is given up (default 60 s). */
  readonly idleMs?: number;
}

const IDLE_TIMEOUT_MS = 60 * 1000;

/**
 * The body of `url`, chunk by chunk: refused past `maxBytes`, given up when the whole
 * download takes too long or the server stops sending, and answered with why when the
 * connection breaks off. Nothing of a refused body is kept by the caller's loop.
 */
async function* cappedBody(
  url: URL,
  limits: DownloadLimits,
  defaultMax: number,
): AsyncGenerator<Uint8Array> {
  const maxBytes = limits.maxBytes ?? defaultMax;
  const idleMs = limits.idleMs ?? IDLE_TIMEOUT_MS;
  const idle = new AbortController();
  const signal = AbortSignal.any([
    AbortSignal.timeout(limits.totalMs ?? DOWNLOAD_TIMEOUT_MS),
    idle.signal,
  ]);
  const timer = setTimeout(() => idle.abort(), idleMs);
  const why = () =>
    idle.signal.aborted
      ? `the server sent nothing for ${idleMs} ms`
      : signal.aborted
        ? 'it timed out'
        : 'the connection broke off';
  try {
    const response = await get(url, signal, why);
    let bytes = 0;
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        timer.refresh();
        bytes += chunk.byteLength;
        if (bytes > maxBytes) throw failed(url, `it is larger than ${maxBytes} bytes`);
        yield chunk;
      }
    } catch (error) {
      if (error instanceof TuttiError) throw error;
      throw failed(url, why());
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Downloads `url` into `file`, hashing it; answers the hex SHA-256 and the size. */
export async function downloadToFile(
  url: URL,
  file: string,
  limits: DownloadLimits = {},
): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  async function* hashed() {
    for await (const chunk of cappedBody(url, limits, MAX_DOWNLOAD_BYTES)) {
      bytes += chunk.byteLength;
      hash.update(chunk);
      yield chunk;
    }
  }
  // The pipeline ends the file on every outcome (a write still under way included).
  await pipeline(hashed(), createWriteStream(file, { mode: 0o600 }));
  return { sha256: hash.digest('hex'), bytes };
}

/** Reads a small document from `url` into memory (capped). */
export async function fetchBytes(url: URL, limits: DownloadLimits = {}): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of cappedBody(url, limits, MAX_DOCUMENT_BYTES)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Reads a document named by a URL (same rules) or a file path. */
export async function readDocument(location: string): Promise<Buffer> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return fetchBytes(checkDownloadUrl(location));
  try {
    return await readFile(location);
  } catch (error) {
    throw failed(location, `the file cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
}
