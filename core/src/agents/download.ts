/**
 * Downloads for the installer: only `https:`, or `http:` to this machine (127.0.0.1,
 * localhost, [::1]); every redirect is checked the same way, and one from `https:` must
 * stay on `https:`. A file is hashed (SHA-256)
 * while it is written and capped in size. Messages show the address without its query
 * (a signed URL's token stays out of errors and logs).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
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
async function get(url: URL, signal: AbortSignal): Promise<Response> {
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
          ? 'it timed out'
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

function tooLarge(url: URL, max: number): TuttiError {
  return failed(url, `it is larger than ${max} bytes`);
}

/** Downloads `url` into `file`, hashing it; answers the hex SHA-256 and the size. */
export async function downloadToFile(
  url: URL,
  file: string,
  maxBytes = MAX_DOWNLOAD_BYTES,
): Promise<{ sha256: string; bytes: number }> {
  const signal = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  const response = await get(url, signal);
  const hash = createHash('sha256');
  const out = createWriteStream(file, { mode: 0o600 });
  let bytes = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw tooLarge(url, maxBytes);
      hash.update(chunk);
      if (!out.write(chunk))
        await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  } catch (error) {
    out.destroy();
    if (error instanceof TuttiError) throw error;
    throw failed(url, signal.aborted ? 'it timed out' : 'the connection broke off');
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return { sha256: hash.digest('hex'), bytes };
}

/** Reads a small document from `url` into memory (capped). */
export async function fetchBytes(url: URL, maxBytes = MAX_DOCUMENT_BYTES): Promise<Buffer> {
  const signal = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  const response = await get(url, signal);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw tooLarge(url, maxBytes);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof TuttiError) throw error;
    throw failed(url, 'the connection broke off');
  }
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
