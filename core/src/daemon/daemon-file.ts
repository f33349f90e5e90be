/**
 * `<home>/run/daemon.json`: how local clients (the `tutti` CLI, a desktop host) find the
 * running daemon. It holds the control token, so it is 0600 in a 0700 folder, written
 * atomically, and removed when the daemon stops.
 */
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';

/** What the daemon publishes about itself. */
export interface DaemonInfo {
  readonly pid: number;
  readonly controlUrl: string;
  readonly controlToken: string;
}

/** Path of the daemon file of `home`. */
export function daemonFilePath(home: string): string {
  return join(home, 'run', 'daemon.json');
}

/** Writes the daemon file (0600, folder 0700). */
export async function writeDaemonFile(home: string, info: DaemonInfo): Promise<string> {
  const dir = join(home, 'run');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const path = daemonFilePath(home);
  await writeFileAtomic(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  return path;
}

/** Removes the daemon file, but only while it still names `pid` (a newer daemon's stays). */
export async function removeDaemonFile(home: string, pid: number): Promise<void> {
  const path = daemonFilePath(home);
  try {
    const current = JSON.parse(await readFile(path, 'utf8')) as { pid?: unknown };
    if (current.pid !== pid) return;
  } catch {
    return;
  }
  await rm(path, { force: true });
}

/** The pid named by an existing daemon file when that process is alive, else undefined. */
export async function runningDaemonPid(home: string): Promise<number | undefined> {
  try {
    const { pid } = JSON.parse(await readFile(daemonFilePath(home), 'utf8')) as { pid?: unknown };
    if (typeof pid !== 'number' || pid === process.pid) return undefined;
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}
