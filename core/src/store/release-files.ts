/**
 * Content addressing of connector releases. A release's digest is a sha256 over its
 * entries sorted by relative path: for each, its type, normalized mode, content hash (or
 * link target) and path. Modes are normalized like git (0755 when any execute bit is set,
 * else 0644), so the digest does not depend on the umask. Symbolic links must point
 * inside the release and are stored as relative links.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, realpath, symlink } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { TuttiError } from '../errors/index.js';

/** One entry of a release, relative to its root, with `/` separators. */
export interface ReleaseEntry {
  readonly path: string;
  readonly type: 'dir' | 'file' | 'link';
  /** Normalized mode of a file: 0o755 or 0o644. */
  readonly mode?: number;
  /** Relative target of a link. */
  readonly target?: string;
}

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

function entryRecord(entry: ReleaseEntry, contentHash: string): string {
  const mode = entry.mode === undefined ? '-' : entry.mode.toString(8);
  const body = entry.type === 'link' ? entry.target : contentHash;
  return `${entry.type}\0${mode}\0${body ?? ''}\0${entry.path}\0`;
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

/**
 * Copies the release at `sourceDir` into the new folder `targetDir` and returns the
 * digest of exactly the bytes copied (so a source changing mid-copy cannot mislabel it).
 */
export async function copyRelease(sourceDir: string, targetDir: string): Promise<string> {
  const root = await realpath(sourceDir);
  const entries = await listReleaseEntries(sourceDir);
  const digest = createHash('sha256');
  await mkdir(targetDir, { mode: 0o755 });
  for (const entry of entries) {
    const target = resolve(targetDir, entry.path);
    let content = '';
    if (entry.type === 'dir') {
      await mkdir(target, { recursive: true, mode: 0o755 });
    } else if (entry.type === 'link') {
      await mkdir(dirname(target), { recursive: true });
      await symlink(entry.target!, target);
    } else {
      await mkdir(dirname(target), { recursive: true });
      const hash = createHash('sha256');
      await pipeline(
        createReadStream(join(root, entry.path)),
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            hash.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(target, { mode: entry.mode, flags: 'wx' }),
      );
      content = hash.digest('hex');
    }
    digest.update(entryRecord(entry, content));
  }
  return digest.digest('hex');
}
