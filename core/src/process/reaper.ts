/**
 * The reaper: one detached watchdog process per daemon that kills every registered
 * upstream process group when the daemon dies in any way, SIGKILL included (Node has no
 * PR_SET_PDEATHSIG). The daemon tells it each group id over a pipe; the pipe closing is
 * the death signal, since the kernel closes it whatever way the daemon ended. On Linux it
 * also ends the processes that left those groups: those carrying the daemon's scope
 * marker in their environment, and every descendant of a process it ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { WATCHDOG_SOURCE } from './reaper-watchdog.js';

/** Handle on the watchdog; every method is synchronous and never throws. */
export interface Reaper {
  /** Pid of the current watchdog process, or undefined when none runs. */
  readonly pid: number | undefined;
  /** Asks the watchdog to kill group `pgid` if the daemon dies. */
  register(pgid: number): void;
  /** Forgets group `pgid` (it is gone, or its owner stopped it). */
  unregister(pgid: number): void;
  /** Lets the watchdog go: it kills what is still registered and exits. */
  close(): void;
}

/** Options of {@link startReaper}. */
export interface ReaperOptions {
  /** Time between the watchdog's SIGTERM and SIGKILL, in ms (default 2000). */
  graceMs?: number;
  /**
   * Prefix of the scope markers (`TUTTI_PROCESS_SCOPE=<prefix>.<n>`) of the supervisor's
   * groups: the watchdog also ends every process carrying one, and their descendants
   * (on Linux), which finds what left its group.
   */
  scopePrefix?: string;
}

/**
 * Starts the watchdog lazily on the first registration, and again (re-sending every
 * registered group) if it ever died.
 * @example const reaper = startReaper(); reaper.register(child.pid);
 */
export function startReaper(options: ReaperOptions = {}): Reaper {
  const graceMs = options.graceMs ?? 2_000;
  const groups = new Set<number>();
  let child: ChildProcess | undefined;
  let closed = false;

  function write(line: string): void {
    const stdin = child?.stdin;
    if (!stdin || stdin.destroyed) return;
    stdin.write(`${line}\n`);
  }

  function ensure(): void {
    if (closed || (child && child.exitCode === null && child.signalCode === null)) return;
    const args = ['-e', WATCHDOG_SOURCE, String(graceMs), options.scopePrefix ?? ''];
    const watchdog = spawn(process.execPath, args, {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      cwd: '/',
      env: {},
    });
    watchdog.on('error', () => {});
    watchdog.stdin?.on('error', () => {});
    watchdog.once('exit', () => {
      if (child === watchdog) child = undefined;
    });
    // Neither the watchdog nor its pipe may keep the daemon's event loop alive.
    watchdog.unref();
    (watchdog.stdin as Socket | null)?.unref();
    child = watchdog;
    for (const pgid of groups) write(`+${pgid}`);
  }

  return {
    get pid() {
      return child?.pid;
    },
    register(pgid) {
      if (closed) return;
      groups.add(pgid);
      if (child) write(`+${pgid}`);
      else ensure();
    },
    unregister(pgid) {
      if (!groups.delete(pgid)) return;
      write(`-${pgid}`);
    },
    close() {
      closed = true;
      child?.stdin?.end();
      child = undefined;
    },
  };
}
