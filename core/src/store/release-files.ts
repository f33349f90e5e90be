/**
 * Content addressing of connector releases. A release's digest is a sha256 over its
 * entries sorted by relative path: for each, its type, normalized mode, content hash (or
 * link target) and path. Modes are normalized like git (0755 when any execute bit is set,
 * else 0644), so the digest does not depend on the umask. Symbolic links must point
 * inside the release and are stored as relative links. These functions read a folder
 * that does not change under them (an installed release); installing from a folder that
 * may is `copyRelease` in `release-copy.ts`.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { entryRecord, type ReleaseEntry } from './release-copy.js';

export type { ReleaseEntry } from './release-copy.js';

function unsafe(source: string, entry: string, reason: string): TuttiError {
  return new TuttiError('TUTTI_ERR_STORE_UNSAFE_RELEASE', { source, entry, reason });
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/**
 * Lists the entries of the release at `sourceDir`, sorted by path. Throws
 * TUTTI_ERR_STORE_UNSAFE_RELEASE for a link that leaves the release or points nowhere,
 * and for sockets, FIFOs and devices.
 */
export async function listReleaseEntries(sourceDir: string): Promise<ReleaseEntry[]> {
  const root = await realpath(sourceDir);
  const entries: ReleaseEntry[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const absolute = join(dir, name);
      const path = relative(root, absolute).split(sep).join('/');
      const stats = await lstat(absolute);
      if (stats.isDirectory()) {
        entries.push({ path, type: 'dir' });
        await walk(absolute);
      } else if (stats.isFile()) {
        entries.push({ path, type: 'file', mode: stats.mode & 0o111 ? 0o755 : 0o644 });
      } else if (stats.isSymbolicLink()) {
        const real = await realpath(absolute).catch(() => undefined);
        if (real === undefined) throw unsafe(sourceDir, path, 'is a symbolic link to nothing');
        if (!inside(root, real)) {
          throw unsafe(sourceDir, path, 'is a symbolic link that points outside the release');
        }
        const targetPath = relative(root, real).split(sep).join('/');
        const target = posix.relative(posix.dirname(`/${path}`), `/${targetPath}`) || '.';
        entries.push({ path, type: 'link', target });
      } else {
        throw unsafe(sourceDir, path, 'is not a file, folder or symbolic link');
      }
    }
  };
  await walk(root);
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The sha256 digest of the release at `dir` (see the module doc for what it covers). */
export async function digestRelease(dir: string): Promise<string> {
  const root = await realpath(dir);
  const digest = createHash('sha256');
  for (const entry of await listReleaseEntries(root)) {
    const content = entry.type === 'file' ? await hashFile(join(root, entry.path)) : '';
    digest.update(entryRecord(entry, content));
  }
  return digest.digest('hex');
}
