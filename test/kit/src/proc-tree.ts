/**
 * The process tree of a pid, read from /proc: every descendant (children, their children,
 * detached groups included) and whether any of them still runs. Zombies count as gone,
 * because PID 1 here does not reap orphans promptly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly state: string;
}

function readEntry(pid: number): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the last ')' of "(comm)": state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), state: fields[0]! };
  } catch {
    return undefined;
  }
}

function allEntries(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const entry = readEntry(pid);
    if (entry) entries.push(entry);
  }
  return entries;
}

/** Pids of every live descendant of `root` (not `root` itself). */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of allEntries()) {
    if (entry.state === 'Z' || entry.state === 'X') continue;
    const list = children.get(entry.ppid) ?? [];
    list.push(entry.pid);
    children.set(entry.ppid, list);
  }
  const found: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** True while `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const entry = readEntry(pid);
  return entry !== undefined && entry.state !== 'Z' && entry.state !== 'X';
}

/** The pids of `pids` still running after polling up to `tries` times 25 ms apart. */
export async function survivors(pids: readonly number[], tries = 400): Promise<number[]> {
  let left = pids.filter(isRunning);
  for (let i = 0; i < tries && left.length > 0; i++) {
    await sleep(25);
    left = left.filter(isRunning);
  }
  return left;
}
