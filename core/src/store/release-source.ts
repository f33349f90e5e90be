/**
 * The release folder a user names, opened the way every read of it must be: the folder
 * itself resolved once and opened with O_DIRECTORY | O_NOFOLLOW, each entry opened with
 * O_NOFOLLOW | O_NONBLOCK (a link is never read through, a FIFO never waited on), on Linux
 * relative to its parent's open descriptor (through `/proc/self/fd`). A path that names no
 * folder, or one the daemon may not read, is the user's mistake: it is answered with a
 * code of its own (4xx), never as a failure of the daemon.
 */
import { constants, existsSync } from 'node:fs';
import { type FileHandle, open, realpath, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { TuttiError } from '../errors/index.js';

/** Flags every entry of a release is opened with. */
export const OPEN_ENTRY =
  constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
// O_NONBLOCK: a FIFO at the root is refused by O_DIRECTORY, and is never waited on.
const OPEN_ROOT =
  constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** `/proc/self/fd` lets a path start at an open folder (an `openat` Node lacks). */
const FD_PATHS = process.platform === 'linux' && existsSync('/proc/self/fd');

/** A release folder opened for reading. */
export interface ReleaseSource {
  /** The folder's real path. */
  readonly root: string;
  /** The folder, open. */
  readonly handle: FileHandle;
}

/** The error of an entry a release may not hold. */
export function unsafe(source: string, entry: string, reason: string): TuttiError {
  return new TuttiError('TUTTI_ERR_STORE_UNSAFE_RELEASE', { source, entry, reason });
}

/** True when `path` is `root` or inside it. */
export function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/** The path that names the entries of the folder open as `dir` (at `path` under `root`). */
export function entriesBase(dir: FileHandle, root: string, path: string): string {
  return FD_PATHS ? `/proc/self/fd/${dir.fd}` : join(root, path);
}

/** The error for `error`, an errno of opening what `path` names, when it is the user's. */
function accessError(source: string, path: string, error: unknown): TuttiError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') {
    return new TuttiError('TUTTI_ERR_STORE_RELEASE_NO_ACCESS', { source, path }, { cause: error });
  }
  return undefined;
}

/**
 * The error of opening an entry at `rel` of the release `source` that failed with `error`
 * (a link is not an error: the caller checks ELOOP first).
 */
export function entryError(source: string, rel: string, error: unknown): TuttiError {
  const denied = accessError(source, join(source, rel), error);
  if (denied) return denied;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENXIO' || code === 'EOPNOTSUPP') {
    return unsafe(source, rel, 'is a socket, not a regular file or folder');
  }
  if (code === 'ENOENT') return unsafe(source, rel, 'vanished while it was copied');
  return unsafe(source, rel, `cannot be opened (${code ?? 'error'})`);
}

/** What `path` is, in words, when it is not a folder. */
async function kindOf(path: string): Promise<string> {
  const stats = await stat(path).catch(() => undefined);
  if (stats === undefined) return 'not a folder';
  if (stats.isFile()) return 'a file';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a folder';
}

/** The first folder above `path` that is not one, for an ENOTDIR of a path lookup. */
async function notAFolderIn(path: string): Promise<string | undefined> {
  const above: string[] = [];
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) above.unshift(dir);
  for (const dir of above) {
    const stats = await stat(dir).catch(() => undefined);
    if (stats && !stats.isDirectory()) return dir;
  }
  return undefined;
}

/** The error of a release folder `source` whose path could not be resolved. */
async function resolveError(source: string, error: unknown): Promise<TuttiError | undefined> {
  const denied = accessError(source, source, error);
  if (denied) return denied;
  const notFound = (reason: string) =>
    new TuttiError('TUTTI_ERR_STORE_RELEASE_NOT_FOUND', { source, reason }, { cause: error });
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return notFound('nothing is at that path');
    case 'ENOTDIR': {
      const file = await notAFolderIn(source);
      return notFound(
        file ? `"${file}" in its path is not a folder` : 'a part of its path is not a folder',
      );
    }
    case 'ELOOP':
      return notFound('its path loops through symbolic links');
    case 'ENAMETOOLONG':
      return notFound('its path is too long');
    default:
      return undefined;
  }
}

/**
 * Resolves and opens the release folder `source`. Throws TUTTI_ERR_STORE_RELEASE_NOT_FOUND,
 * _NOT_A_FOLDER or _NO_ACCESS, naming the path, when it names no folder the daemon may
 * read; any other failure as it came.
 */
export async function openReleaseSource(source: string): Promise<ReleaseSource> {
  let root: string;
  try {
    root = await realpath(source);
  } catch (error) {
    throw (await resolveError(source, error)) ?? error;
  }
  try {
    return { root, handle: await open(root, OPEN_ROOT) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') {
      throw new TuttiError(
        'TUTTI_ERR_STORE_RELEASE_NOT_A_FOLDER',
        { source, what: await kindOf(root) },
        { cause: error },
      );
    }
    // Replaced by a link since it was resolved: what it was is gone.
    if (code === 'ELOOP')
      throw unsafe(source, '.', 'was replaced by a symbolic link while it was read');
    throw (await resolveError(source, error)) ?? error;
  }
}
