/**
 * Copies a connector release from a folder someone else may be changing into a private
 * staging folder, without ever following a link or opening anything but regular files and
 * folders. Each entry is opened with O_NOFOLLOW | O_NONBLOCK and checked with fstat on the
 * open descriptor, so a file swapped for a FIFO, a device or a socket is refused (never
 * read, never waited on) and a file swapped for a symlink is recorded as the link, not
 * read through. On Linux every entry is opened relative to its parent folder's open
 * descriptor (through `/proc/self/fd`), so a folder swapped for a symlink mid-copy cannot
 * redirect the copy either. Symbolic links are copied as links and checked on the private
 * copy, where nothing changes any more. Sizes and entry counts are capped, and the copy
 * stops when its signal aborts.
 */
import { createHash } from 'node:crypto';
import {
  chmod,
  type FileHandle,
  mkdir,
  open,
  readdir,
  readlink,
  realpath,
  rm,
  symlink,
} from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { TuttiError } from '../errors/index.js';
import {
  entriesBase,
  entryError,
  inside,
  OPEN_ENTRY,
  openReleaseSource,
  unsafe,
} from './release-source.js';

/** Caps on one release: what a release may hold at most. */
export interface ReleaseLimits {
  /** Bytes of file content (default 256 MiB). */
  readonly maxBytes: number;
  /** Files, folders and links (default 100,000). */
  readonly maxEntries: number;
}

/** Default caps; a user raises them with `tuttid --max-release-mb` (or the store option). */
export const DEFAULT_RELEASE_LIMITS: Readonly<ReleaseLimits> = Object.freeze({
  maxBytes: 256 * 1024 * 1024,
  maxEntries: 100_000,
});

/** One entry of a release, relative to its root, with `/` separators. */
export interface ReleaseEntry {
  readonly path: string;
  readonly type: 'dir' | 'file' | 'link';
  /** Normalized mode of a file: 0o755 or 0o644. */
  readonly mode?: number;
  /** Relative target of a link. */
  readonly target?: string;
}

/** Options of {@link copyRelease}. */
export interface CopyReleaseOptions {
  readonly limits?: Partial<ReleaseLimits>;
  /** Aborting stops the copy at the next entry or chunk. */
  readonly signal?: AbortSignal;
}

const CHUNK = 64 * 1024;

/** The record of one entry that the release digest is made of. */
export function entryRecord(entry: ReleaseEntry, contentHash: string): string {
  const mode = entry.mode === undefined ? '-' : entry.mode.toString(8);
  const body = entry.type === 'link' ? entry.target : contentHash;
  return `${entry.type}\0${mode}\0${body ?? ''}\0${entry.path}\0`;
}

/** The digest over `records` (entry record per path), sorted by path. */
export function digestOf(records: Map<string, string>): string {
  const digest = createHash('sha256');
  for (const path of [...records.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    digest.update(records.get(path)!);
  }
  return digest.digest('hex');
}

/**
 * Copies the release at `sourceDir` into the new folder `targetDir` (created 0700 and
 * opened up to 0755 once complete) and returns the digest of exactly the bytes copied.
 * Throws TUTTI_ERR_STORE_UNSAFE_RELEASE for anything but regular files, folders and links
 * that resolve inside the release, TUTTI_ERR_STORE_RELEASE_TOO_LARGE past a limit, and
 * the errors of {@link openReleaseSource} for a path that names no folder it may read.
 */
export async function copyRelease(
  sourceDir: string,
  targetDir: string,
  options: CopyReleaseOptions = {},
): Promise<string> {
  const limits = { ...DEFAULT_RELEASE_LIMITS, ...options.limits };
  const { signal } = options;
  const { root, handle: top } = await openReleaseSource(sourceDir);
  const records = new Map<string, string>();
  const links: { path: string; target: string }[] = [];
  let bytes = 0;
  let entries = 0;

  const check = (path: string) => {
    signal?.throwIfAborted();
    entries += 1;
    if (entries > limits.maxEntries) {
      throw new TuttiError('TUTTI_ERR_STORE_RELEASE_TOO_LARGE', {
        source: sourceDir,
        limit: `${limits.maxEntries} entries`,
        at: path,
      });
    }
  };

  const copyFile = async (handle: FileHandle, path: string, mode: number) => {
    const out = await open(join(targetDir, path), 'wx', mode);
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(CHUNK);
    try {
      for (;;) {
        signal?.throwIfAborted();
        const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
        if (bytesRead === 0) break;
        bytes += bytesRead;
        if (bytes > limits.maxBytes) {
          throw new TuttiError('TUTTI_ERR_STORE_RELEASE_TOO_LARGE', {
            source: sourceDir,
            limit: `${Math.floor(limits.maxBytes / (1024 * 1024))} MiB`,
            at: path,
          });
        }
        const chunk = buffer.subarray(0, bytesRead);
        hash.update(chunk);
        await out.write(chunk);
      }
    } finally {
      await out.close();
    }
    return hash.digest('hex');
  };

  /** Copies the folder open as `dir` (at `path`, '' for the root). */
  const walk = async (dir: FileHandle, path: string): Promise<void> => {
    const base = entriesBase(dir, root, path);
    const names = (await readdir(base)).sort();
    for (const name of names) {
      const rel = path === '' ? name : `${path}/${name}`;
      check(rel);
      let handle: FileHandle;
      try {
        handle = await open(join(base, name), OPEN_ENTRY);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ELOOP' || code === 'EMLINK') {
          links.push({ path: rel, target: await readlink(join(base, name)) });
          continue;
        }
        throw entryError(sourceDir, rel, error);
      }
      try {
        const stats = await handle.stat();
        if (stats.isDirectory()) {
          records.set(rel, entryRecord({ path: rel, type: 'dir' }, ''));
          await mkdir(join(targetDir, rel), { mode: 0o755 });
          await walk(handle, rel);
        } else if (stats.isFile()) {
          const mode = stats.mode & 0o111 ? 0o755 : 0o644;
          const content = await copyFile(handle, rel, mode);
          records.set(rel, entryRecord({ path: rel, type: 'file', mode }, content));
        } else {
          throw unsafe(sourceDir, rel, 'is a FIFO, socket or device, not a regular file or folder');
        }
      } finally {
        await handle.close();
      }
    }
  };

  let made = false;
  try {
    await mkdir(targetDir, { mode: 0o700 });
    made = true;
    await walk(top, '');
    await copyLinks(sourceDir, root, targetDir, links, records);
    await chmod(targetDir, 0o755);
  } catch (error) {
    // A copy that failed, or went on past its caller's time limit, leaves nothing behind:
    // its caller may have given up and cleaned up before this point.
    if (made) await rm(targetDir, { recursive: true, force: true }).catch(() => {});
    throw error;
  } finally {
    await top.close();
  }
  return digestOf(records);
}

/**
 * Writes the links into the private copy and checks them there, where nothing changes any
 * more: each must resolve to something inside the release; it is stored as the relative
 * link to what it resolves to (an absolute link into the source folder included).
 */
async function copyLinks(
  sourceDir: string,
  root: string,
  targetDir: string,
  links: readonly { path: string; target: string }[],
  records: Map<string, string>,
): Promise<void> {
  const staged = await realpath(targetDir);
  for (const link of links) {
    const target =
      isAbsolute(link.target) && inside(root, link.target)
        ? join(staged, relative(root, link.target))
        : link.target;
    await symlink(target, join(staged, link.path));
  }
  for (const link of links) {
    const absolute = join(staged, link.path);
    const real = await realpath(absolute).catch(() => undefined);
    if (real === undefined) throw unsafe(sourceDir, link.path, 'is a symbolic link to nothing');
    if (!inside(staged, real)) {
      throw unsafe(sourceDir, link.path, 'is a symbolic link that points outside the release');
    }
    const targetPath = relative(staged, real).split(sep).join('/');
    const target = posix.relative(posix.dirname(`/${link.path}`), `/${targetPath}`) || '.';
    records.set(link.path, entryRecord({ path: link.path, type: 'link', target }, ''));
  }
  // Rewrite every link to its relative form only once all were checked: a link may
  // resolve through another one.
  for (const link of links) {
    const record = records.get(link.path)!;
    const target = record.split('\0')[2]!;
    const absolute = join(staged, link.path);
    await rm(absolute);
    await mkdir(dirname(absolute), { recursive: true });
    await symlink(target, absolute);
  }
}
