/**
 * The process supervisor: spawns each upstream server as the leader of its own process
 * group (or adopts an agent process a provider spawned detached), keeps a bounded stderr
 * tail, registers the group with the reaper, and stops whole groups (grandchildren
 * included) with SIGTERM then SIGKILL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { signalGroup } from './process-group.js';
import {
  type ProcEntry,
  readProcEntry,
  readProcessTable,
  SCOPE_ENV,
  treeOutsideGroup,
} from './process-tree.js';
import { type Reaper, startReaper } from './reaper.js';
import { becomeChildSubreaper, isChildSubreaper, reapChild } from './subreaper.js';
import { DEFAULT_STDERR_TAIL_BYTES, createStderrTail } from './stderr-tail.js';
import {
  DEFAULT_GROUP_GRACE_MS,
  type LeaderExit,
  type TrackedGroup,
  trackProcessGroup,
} from './tracked-group.js';

/** What to run; `env` is the child's whole environment, nothing is added to it. */
export interface SpawnGroupOptions {
  command: string;
  args?: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string;
  /** Bytes of stderr kept for diagnostics (default 16 KiB). */
  stderrTailBytes?: number;
  /**
   * Files the child gets open for reading as its descriptors 3, 4, ... (bwrap's
   * `--seccomp 3`); opened at the spawn and closed here once it started.
   */
  files?: readonly string[];
}

/** Options of {@link ProcessSupervisor.adopt}. */
export interface AdoptOptions {
  /** Time between SIGTERM and SIGKILL for this group, in ms (default: the supervisor's). */
  graceMs?: number;
}

/** How a supervised process ended. */
export interface ProcessExitInfo {
  /** Exit code of the group leader, or null when a signal ended it. */
  readonly code: number | null;
  /** Signal that ended the leader, or null. */
  readonly signal: NodeJS.Signals | null;
  /** The last bytes it wrote to stderr. */
  readonly stderrTail: string;
  /** True when the supervisor was asked to stop it (terminate or shutdown). */
  readonly expected: boolean;
}

/** A running process that leads its own group. */
export interface SupervisedProcess {
  /** Pid of the leader, which is also the process-group id. */
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves once the leader exited and its stdio closed (the rest of the group is being killed). */
  readonly exited: Promise<ProcessExitInfo>;
  /** The current stderr tail. */
  stderrTail(): string;
  /** SIGTERM to the group, SIGKILL after the grace period; resolves when the group is gone. */
  terminate(): Promise<void>;
}

/** Spawns and tracks process groups; one per daemon. */
export interface ProcessSupervisor {
  /** Spawns `options.command` detached; rejects when it cannot start (e.g. ENOENT). */
  spawn(options: SpawnGroupOptions): Promise<SupervisedProcess>;
  /**
   * Takes over a child the caller spawned `detached` (so it leads its own group): registers
   * the group with the reaper and stops it with the others. Call it right after `spawn`.
   */
  adopt(child: ChildProcess, options?: AdoptOptions): TrackedGroup;
  /** Groups currently tracked. */
  readonly groups: readonly number[];
  /** Pid of the reaper watchdog, when one runs. */
  readonly reaperPid: number | undefined;
  /** Stops every tracked group (in parallel) and resolves when all are gone. */
  terminateAll(): Promise<void>;
  /** Sends `signal` to every tracked group at once; for paths that cannot wait. */
  signalAllSync(signal: NodeJS.Signals): void;
  /** Stops every group, then lets the reaper go. */
  close(): Promise<void>;
}

/** Options of {@link createProcessSupervisor}. */
export interface ProcessSupervisorOptions {
  /** Time between SIGTERM and SIGKILL when stopping a group, in ms (default 2000). */
  graceMs?: number;
  /** Run a reaper watchdog (default true); pass one to share it. */
  reaper?: boolean | Reaper;
  /**
   * Make this process the child subreaper of its descendants on Linux (default true), so
   * processes that leave their group are still found and ended with it.
   */
  subreaper?: boolean;
}

/** Longest wait for a stopped adopted process to become collectable. */
const REAP_WAIT_MS = 2_000;

/**
 * Collects the adopted ones among stopped outsiders (children of this process now). Their
 * parent is read again: one whose parent was still alive when the group was stopped (the
 * middle of a double fork) was adopted only as that parent died. A multi-threaded process
 * shows as a zombie before its last thread is gone and cannot be collected until then, so
 * each is polled for a short while.
 */
async function reapAdopted(gone: readonly ProcEntry[]): Promise<void> {
  const deadline = Date.now() + REAP_WAIT_MS;
  let left = gone.filter((entry) => {
    const now = readProcEntry(entry.pid);
    return now?.startTime === entry.startTime && now.ppid === process.pid;
  });
  while (left.length > 0) {
    left = left.filter((entry) => !reapChild(entry.pid) && readProcEntry(entry.pid) !== undefined);
    if (left.length === 0 || Date.now() >= deadline) return;
    await sleep(10);
  }
}

/**
 * Creates a supervisor whose groups die with the daemon, however the daemon ends.
 * @example const supervisor = createProcessSupervisor(); installExitHandlers(supervisor);
 */
export function createProcessSupervisor(options: ProcessSupervisorOptions = {}): ProcessSupervisor {
  const graceMs = options.graceMs ?? DEFAULT_GROUP_GRACE_MS;
  if (options.subreaper !== false) becomeChildSubreaper();
  /** Prefix of the scope marker of every group this supervisor spawns. */
  const scopePrefix = `${process.pid}-${randomBytes(6).toString('hex')}`;
  let scopes = 0;
  const reaper =
    typeof options.reaper === 'object'
      ? options.reaper
      : options.reaper === false
        ? undefined
        : startReaper({ graceMs, scopePrefix });
  const live = new Map<number, TrackedGroup>();

  function adopt(
    child: ChildProcess,
    adoptOptions: AdoptOptions = {},
    scope?: string,
  ): TrackedGroup {
    const leader = child.pid;
    const group = trackProcessGroup(child, {
      graceMs: adoptOptions.graceMs ?? graceMs,
      outsiders: () =>
        leader === undefined
          ? []
          : treeOutsideGroup(readProcessTable(), {
              pgid: leader,
              ...(scope !== undefined && { scope }),
              // As subreaper every orphan of the tree is a child of this process.
              ...(isChildSubreaper() && { adoptedBy: process.pid }),
            }),
      onOutsidersGone: reapAdopted,
    });
    const { pgid } = group;
    reaper?.register(pgid);
    live.set(pgid, group);
    void group.gone.then(() => {
      // A later group may reuse the id once this one is gone: forget only our own entry.
      if (live.get(pgid) !== group) return;
      live.delete(pgid);
      reaper?.unregister(pgid);
    });
    return group;
  }

  async function spawnGroup(spec: SpawnGroupOptions): Promise<SupervisedProcess> {
    scopes += 1;
    const scope = `${scopePrefix}.${scopes}`;
    const files = (spec.files ?? []).map((path) => openSync(path, 'r'));
    let child: ChildProcess;
    try {
      child = spawn(spec.command, [...(spec.args ?? [])], {
        detached: true,
        // The marker that finds the tree's processes again after they left the group.
        env: { ...spec.env, [SCOPE_ENV]: scope },
        cwd: spec.cwd,
        stdio: ['pipe', 'pipe', 'pipe', ...files],
        shell: false,
      });
    } finally {
      // The child holds its own copies once spawn returned.
      for (const fd of files) closeSync(fd);
    }
    // Register before anything can yield, so a daemon SIGKILL right now still reaps it.
    const group = child.pid === undefined ? undefined : adopt(child, {}, scope);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    if (!group) throw new Error(`${spec.command} did not start`);
    const tail = createStderrTail(spec.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES);
    child.stderr!.on('data', (chunk: Buffer) => tail.push(chunk));
    // Late errors (EPIPE, a failed kill) must never become an unhandled 'error' event.
    child.on('error', () => {});
    child.stdin!.on('error', () => {});
    child.stderr!.on('error', () => {});

    const exited = new Promise<ProcessExitInfo>((resolve) => {
      let exitInfo: LeaderExit | undefined;
      const finish = () => {
        if (!exitInfo) return;
        resolve({ ...exitInfo, stderrTail: tail.text(), expected: group.stopping });
      };
      // Synchronously: 'close' may follow 'exit' in the same tick.
      child.once('exit', (code, signal) => {
        exitInfo = { code, signal };
        // Stdio normally closes at once; a member outside the group could hold it open.
        setTimeout(finish, 1_000).unref();
      });
      child.once('close', () => finish());
    });

    return {
      pid: group.pgid,
      stdin: child.stdin!,
      stdout: child.stdout!,
      exited,
      stderrTail: () => tail.text(),
      terminate: () => group.terminate(),
    };
  }

  return {
    spawn: spawnGroup,
    adopt,
    get groups() {
      return [...live.keys()];
    },
    get reaperPid() {
      return reaper?.pid;
    },
    async terminateAll() {
      await Promise.all([...live.values()].map((proc) => proc.terminate()));
    },
    signalAllSync(signal) {
      for (const pid of live.keys()) signalGroup(pid, signal);
    },
    async close() {
      await Promise.all([...live.values()].map((proc) => proc.terminate()));
      if (typeof options.reaper !== 'object') reaper?.close();
    },
  };
}
