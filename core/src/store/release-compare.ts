/**
 * Tells, without copying it, whether a release folder holds exactly the content of an
 * installed release, so that installing the same content again costs a read instead of a
 * copy. The source is digested in place by the rules of `copyRelease`: nothing opened
 * through a link, nothing but regular files and folders read (a FIFO is never waited on),
 * on Linux each entry opened relative to its parent's descriptor, the size and entry caps
 * of a release, the caller's time limit; each entry's record is `entryRecord`'s, and the
 * digest `digestOf`'s. The one difference is a link: the copy records the relative form of
 * what the link resolves to, checked on its private copy; here a link is recorded as the
 * text it holds. The two agree exactly when the text is already that relative form (what
 * an installed release holds), and a source that differs from an installed release in
 * anything, a link's text included, has another digest, so a match is exact (as exact as
 * the sha256 the store addresses releases by).
 *
 * Only "the same" is a verdict: anything else (another digest, an entry the copy would
 * refuse, a cap passed, an error) answers "not known to be the same", and the caller
 * copies the source and lets the copy decide, as for any new release. A source whose
 * manifest has the bytes of no installed release's manifest is not digested at all (a new
 * version costs nothing here).
 */
import { createHash } from 'node:crypto';
import { type FileHandle, open, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE } from '../manifest/index.js';
import {
  DEFAULT_RELEASE_LIMITS,
  digestOf,
  entryRecord,
  type ReleaseLimits,
} from './release-copy.js';
import { entriesBase, OPEN_ENTRY, openReleaseSource } from './release-source.js';

const CHUNK = 64 * 1024;
/** Files read at once: enough to keep the file system's thread pool busy. */
const PARALLEL = 16;

/** Options of {@link findInstalledCopy}. */
export interface FindInstalledCopyOptions {
  /** Caps of one release, as the copy applies them (default {@link DEFAULT_RELEASE_LIMITS}). */
  readonly limits?: Partial<ReleaseLimits>;
  /** Aborting stops the digest at the next entry or chunk. */
  readonly signal?: AbortSignal;
}

/** Thrown inside the walk when the source cannot be the same as an installed release. */
class NotTheSame extends Error {}

/**
 * Calls `each` on every item, `PARALLEL` at once. The first failure stops new calls and is
 * thrown once the calls under way have ended (none outlives the folder they read).
 */
async function forEachBounded<T>(
  items: readonly T[],
  each: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const item = items[next]!;
      next += 1;
      try {
        await each(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  if (failure) throw failure.error;
}

/** The in-place digest of the release folder open as `top` (see the module doc). */
async function digestInPlace(
  top: FileHandle,
  root: string,
  options: FindInstalledCopyOptions,
): Promise<string> {
  const limits = { ...DEFAULT_RELEASE_LIMITS, ...options.limits };
  const { signal } = options;
  const records = new Map<string, string>();
  let entries = 0;
  let bytes = 0;

  /**
   * The sha256 of the regular file open as `handle`, `size` bytes by its fstat: a file that
   * grows or shrinks while it is read is being written, so not known to be the same.
   */
  const hashFile = async (handle: FileHandle, size: number): Promise<string> => {
    bytes += size;
    if (bytes > limits.maxBytes) throw new NotTheSame();
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, size + 1));
    let read = 0;
    for (;;) {
      signal?.throwIfAborted();
      // One byte more than is left: a read that returns less has reached the end.
      const want = Math.min(buffer.length, size - read + 1);
      const { bytesRead } = await handle.read(buffer, 0, want, null);
      if (bytesRead === 0) break;
      read += bytesRead;
      if (read > size) throw new NotTheSame();
      hash.update(buffer.subarray(0, bytesRead));
      if (read === size && bytesRead < want) break;
    }
    if (read !== size) throw new NotTheSame();
    return hash.digest('hex');
  };

  /** Records the entry `name` of the folder reached as `base`; a folder's name goes to `folders`. */
  const record = async (base: string, rel: string, name: string, folders: string[]) => {
    signal?.throwIfAborted();
    entries += 1;
    if (entries > limits.maxEntries) throw new NotTheSame();
    let handle: FileHandle;
    try {
      handle = await open(join(base, name), OPEN_ENTRY);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ELOOP' && code !== 'EMLINK') throw new NotTheSame();
      const target = await readlink(join(base, name));
      records.set(rel, entryRecord({ path: rel, type: 'link', target }, ''));
      return;
    }
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) {
        records.set(rel, entryRecord({ path: rel, type: 'dir' }, ''));
        folders.push(name);
      } else if (stats.isFile()) {
        const mode = stats.mode & 0o111 ? 0o755 : 0o644;
        const content = await hashFile(handle, stats.size);
        records.set(rel, entryRecord({ path: rel, type: 'file', mode }, content));
      } else {
        throw new NotTheSame();
      }
    } finally {
      await handle.close();
    }
  };

  /** Records everything under the folder open as `dir` (at `path`, '' for the root). */
  const walk = async (dir: FileHandle, path: string): Promise<void> => {
    const base = entriesBase(dir, root, path);
    const relOf = (name: string) => (path === '' ? name : `${path}/${name}`);
    const folders: string[] = [];
    await forEachBounded(await readdir(base), (name) => record(base, relOf(name), name, folders));
    // Folders one at a time (open again, and checked again): one open folder per level.
    for (const name of folders.sort()) {
      const folder = await open(join(base, name), OPEN_ENTRY).catch(() => {
        throw new NotTheSame();
      });
      try {
        if (!(await folder.stat()).isDirectory()) throw new NotTheSame();
        await walk(folder, relOf(name));
      } finally {
        await folder.close();
      }
    }
  };

  await walk(top, '');
  return digestOf(records);
}

/** Up to `limit` bytes of the source's manifest file, or undefined when it is not a file. */
async function sourceManifest(
  top: FileHandle,
  root: string,
  limit: number,
): Promise<Buffer | undefined> {
  const handle = await open(join(entriesBase(top, root, ''), MANIFEST_FILE), OPEN_ENTRY).catch(
    () => undefined,
  );
  if (!handle) return undefined;
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const buffer = Buffer.alloc(limit);
    const { bytesRead } = await handle.read(buffer, 0, limit, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The one of `installed` whose release the folder `sourceDir` holds exactly, found without
 * copying anything (see the module doc), or undefined when none is known to be the same:
 * then the source must be copied as a new release. Only the release whose manifest has the
 * bytes of the source's manifest can be the same (a manifest names its key: at most one).
 * @example const same = await findInstalledCopy('/src/release', store.installed());
 */
export async function findInstalledCopy<
  T extends { readonly releaseDir: string; readonly digest: string },
>(
  sourceDir: string,
  installed: readonly T[],
  options: FindInstalledCopyOptions = {},
): Promise<T | undefined> {
  if (installed.length === 0) return undefined;
  const manifests = await Promise.all(
    installed.map((release) =>
      readFile(join(release.releaseDir, MANIFEST_FILE)).catch(() => undefined),
    ),
  );
  const longest = Math.max(...manifests.map((bytes) => bytes?.length ?? 0));
  try {
    const { root, handle: top } = await openReleaseSource(sourceDir);
    try {
      // One byte over the longest installed manifest tells a longer one apart.
      const manifest = await sourceManifest(top, root, longest + 1);
      const index = manifest ? manifests.findIndex((bytes) => bytes?.equals(manifest)) : -1;
      const candidate = installed[index];
      if (!candidate) return undefined;
      return (await digestInPlace(top, root, options)) === candidate.digest ? candidate : undefined;
    } finally {
      await top.close();
    }
  } catch (error) {
    if (options.signal?.aborted) throw error;
    // Not known to be the same: the copy reads the source again and reports what it finds.
    return undefined;
  }
}
