/**
 * The whole tree of one supervised process group, including what left the group: every
 * process whose parent chain leads back to the group (a grandchild that called `setsid`
 * while its parent lives), and every process carrying the group's scope marker in its
 * environment (one whose parent chain broke: a double-forked daemon, re-parented to the
 * daemon as subreaper, or to PID 1 elsewhere). Read from `/proc`; empty where there is
 * none (not Linux). A marker a process removed from its own environment cannot be seen.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Environment variable that marks every process of one supervised group's tree. */
export const SCOPE_ENV = 'TUTTI_PROCESS_SCOPE';

/** One process as `/proc/<pid>/stat` shows it. */
export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly state: string;
  /** Start time in clock ticks since boot: tells a pid apart from a later reuse of it. */
  readonly startTime: string;
}

/** A process identified beyond its pid (pids are reused). */
export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime: string;
}

const isZombie = (state: string) => state === 'Z' || state === 'X';

/** Process `pid` as `/proc/<pid>/stat` shows it now; undefined once it is gone. */
export function readProcEntry(pid: number): ProcEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the last ')' of "(comm)": state ppid pgrp session ... starttime (22nd).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: fields[0] ?? '',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: fields[19] ?? '',
  };
}

/** Every process in `/proc` (empty without `/proc`). */
export function readProcessTable(): Map<number, ProcEntry> {
  const table = new Map<number, ProcEntry>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const name of names) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const entry = readProcEntry(Number(name));
    if (entry) table.set(entry.pid, entry);
  }
  return table;
}

/** True when process `pid` was started with `SCOPE_ENV=<scope>` in its environment. */
export function carriesScope(pid: number, scope: string): boolean {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  const entry = Buffer.from(`${SCOPE_ENV}=${scope}\0`);
  return (
    environ.indexOf(entry) === 0 || environ.indexOf(Buffer.concat([Buffer.from('\0'), entry])) >= 0
  );
}

/** Options of {@link treeOutsideGroup}. */
export interface TreeOptions {
  /** The group's id (its leader's pid). */
  readonly pgid: number;
  /** The group's scope marker, when its processes carry one. */
  readonly scope?: string;
  /** Look for marked processes only among these parents' children (the subreaper). */
  readonly adoptedBy?: number;
}

/**
 * The live processes of the group's tree that are not members of the group itself (those
 * a signal to the group does not reach): descendants by parent chain of any group member,
 * and marked processes with their own descendants.
 */
export function treeOutsideGroup(
  table: ReadonlyMap<number, ProcEntry>,
  options: TreeOptions,
): ProcEntry[] {
  const children = new Map<number, ProcEntry[]>();
  for (const entry of table.values()) {
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const seen = new Set<number>();
  const queue: ProcEntry[] = [];
  for (const entry of table.values()) {
    if (entry.pgid === options.pgid) queue.push(entry);
    else if (
      options.scope !== undefined &&
      (options.adoptedBy === undefined || entry.ppid === options.adoptedBy) &&
      entry.pid !== process.pid &&
      carriesScope(entry.pid, options.scope!)
    ) {
      queue.push(entry);
    }
  }
  const outside: ProcEntry[] = [];
  while (queue.length > 0) {
    const entry = queue.pop()!;
    if (seen.has(entry.pid)) continue;
    seen.add(entry.pid);
    if (entry.pgid !== options.pgid && !isZombie(entry.state)) outside.push(entry);
    for (const child of children.get(entry.pid) ?? []) queue.push(child);
  }
  return outside;
}

/** True while `identity` still names the same running (non-zombie) process. */
export function isSameProcessRunning(identity: ProcessIdentity): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${identity.pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] === identity.startTime && !isZombie(fields[0] ?? '');
}

/** Sends `signal` to `identity` if it is still the same process. */
export function signalIdentity(identity: ProcessIdentity, signal: NodeJS.Signals): void {
  if (!isSameProcessRunning(identity)) return;
  try {
    process.kill(identity.pid, signal);
  } catch {
    // Gone in between, or not ours to signal.
  }
}
