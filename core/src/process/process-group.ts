/**
 * Process-group primitives: signal a whole group, tell whether any live (non-zombie)
 * member is left, and stop a group with SIGTERM then SIGKILL.
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
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the last ')' of "(comm)": state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') {
      pids.push(Number(entry));
    }
  }
  return pids;
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
