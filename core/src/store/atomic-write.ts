/**
 * Crash-safe file writes: write a temp file in the same folder, fsync it, rename it over
 * the target, fsync the folder. A crash leaves either the old or the new file, plus at
 * most a stray temp file that {@link removeStrayTempFiles} clears.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** File mode of the new file (default 0o644; use 0o600 for secrets). */
  readonly mode?: number;
}

/** Flushes a folder's entries (the rename) to disk; a no-op where folders cannot be opened. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: import('node:fs/promises').FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error;
  } finally {
    await handle?.close();
  }
}

/** Replaces `path` with `data` atomically and durably. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const mode = options.mode ?? 0o644;
  const temp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await fsyncDir(dirname(path));
}

/** True when a process with `pid` is running (this process counts as running). */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temp files {@link writeFileAtomic} left in `dir` by processes that died
 * mid-write (a live writer's temp file is left alone). Returns the names removed.
 */
export async function removeStrayTempFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const stray = names.filter((name) => {
    const match = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name);
    return match !== null && !isProcessAlive(Number(match[1]));
  });
  await Promise.all(stray.map((name) => rm(join(dir, name), { force: true })));
  return stray;
}
