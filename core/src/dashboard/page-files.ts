/**
 * The dashboard page's built files (`dashboard/dist/`, made by `vite build` at `npm run
 * build`, `npm start` and `npm test`): read from disk on each request, only names Vite
 * writes, never a path outside the folder.
 */
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built page: `<repo>/dashboard/dist` (this file is at core/src/dashboard or core/dist/dashboard). */
export const PAGE_DIR = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** A file of the page. */
export interface PageFile {
  readonly body: Buffer;
  readonly type: string;
}

/** `index.html`, or undefined when the page is not built. */
export function pageIndex(dir = PAGE_DIR): Promise<PageFile | undefined> {
  return read(join(dir, 'index.html'));
}

/** One file of `assets/`, or undefined for a name Vite does not write or a missing file. */
export function pageAsset(name: string, dir = PAGE_DIR): Promise<PageFile | undefined> {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name) || !(extname(name) in TYPES)) {
    return Promise.resolve(undefined);
  }
  return read(join(dir, 'assets', name));
}

async function read(path: string): Promise<PageFile | undefined> {
  try {
    return { body: await readFile(path), type: TYPES[extname(path)] ?? 'application/octet-stream' };
  } catch {
    return undefined;
  }
}
