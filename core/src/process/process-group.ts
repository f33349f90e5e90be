/**
 * Process-group primitives: signal a whole group, tell whether any live (non-zombie)
 * member (or one process) is left, and stop a group with SIGTERM then SIGKILL.
 *
 * "Alive" ignores zombies on purpose: orphaned grandchildren are re-parented to PID 1,
 * and where PID 1 does not reap promptly (some container inits), `kill(-pgid, 0)` keeps
 * succeeding for minutes although nothing runs any more.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 10;

/** Sends `signal` to every process of group `pgid`; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** State and process group of `pid` from `/proc/<pid>/stat`; undefined when it is gone. */
function procStat(pid: number | string): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the last ')' of "(comm)": state ppid pgrp ...
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
}

const isZombie = (state: string) => state === 'Z' || state === 'X';

/** Pids of the live (not zombie) processes of group `pgid`, read from /proc. */
function livePidsFromProc(pgid: number): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    const stat = procStat(entry);
    if (stat && stat.pgrp === pgid && !isZombie(stat.state)) pids.push(Number(entry));
  }
  return pids;
}

/** True while process `pid` runs; a zombie (exited, not yet reaped) does not count. */
export function isProcessRunning(pid: number): boolean {
  const stat = procStat(pid);
  if (stat) return !isZombie(stat.state);
  // Gone, or no /proc at all (not Linux): ask the kernel.
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True while any non-zombie process of group `pgid` exists. */
export function isProcessGroupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const live = livePidsFromProc(pgid);
  return live === undefined ? true : live.length > 0;
}

/** Resolves true once group `pgid` has no live process, false after `timeoutMs`. */
export async function waitForGroupExit(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessGroupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/**
 * Stops group `pgid`: SIGTERM, then SIGKILL once `graceMs` passed, and resolves when no
 * live process of the group is left (or `killWaitMs` after SIGKILL, which only an
 * uninterruptible process can outlast).
 */
export async function terminateGroup(
  pgid: number,
  graceMs: number,
  killWaitMs = 5_000,
): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await waitForGroupExit(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitForGroupExit(pgid, killWaitMs);
}
