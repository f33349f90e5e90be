/**
 * Child processes of the benches, through core's process supervisor: each leads its own
 * process group (a stop reaches the whole tree, grandchildren and escapees included), runs
 * with HOME and XDG dirs in a temp dir, and is stopped when the bench ends, fails or the
 * bench process exits (the supervisor's exit handlers and reaper). Also readiness helpers.
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createProcessSupervisor, installExitHandlers } from '@tutti/core/internal';

/** Time between SIGTERM and SIGKILL of a bench child's group. */
const GRACE_MS = 3000;

const supervisor = createProcessSupervisor({ graceMs: GRACE_MS });
installExitHandlers(supervisor);

/** Temp homes not yet removed, for the exit handler. */
const homes = new Set<() => void>();
process.once('exit', () => {
  for (const remove of homes) remove();
});

/** HOME and XDG_* of a child pointed at one temp folder. */
export interface TempHome {
  readonly dir: string;
  readonly env: Record<string, string>;
  remove(): void;
}

/** A temp dir for HOME/XDG_* of one child; removed by `remove()` or at exit. */
export function tempHome(prefix = 'tutti-peers-bench-'): TempHome {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => {
    homes.delete(remove);
    rmSync(dir, { recursive: true, force: true });
  };
  homes.add(remove);
  return {
    dir,
    env: {
      HOME: dir,
      XDG_CONFIG_HOME: dir,
      XDG_DATA_HOME: dir,
      XDG_CACHE_HOME: dir,
      XDG_STATE_HOME: dir,
    },
    remove,
  };
}

/** Options of {@link spawnGroup}. */
export interface SpawnGroupOptions {
  /** Added to PATH and the temp HOME/XDG_* (and overriding them). */
  env?: Record<string, string>;
  cwd?: string;
  /** Open an IPC channel (node children only). */
  ipc?: boolean;
  /** `pipe` keeps stdin writable. */
  stdin?: 'ignore' | 'pipe';
  /** Time between SIGTERM and SIGKILL of the group (default 3 s). */
  graceMs?: number;
  /** `env` is the child's whole environment: no PATH, no temp HOME is added. */
  wholeEnv?: boolean;
}

/** A bench child leading its own group. */
export interface Group {
  readonly child: ChildProcess;
  /** Pid of the leader (the process-group id). */
  readonly pid: number;
  /** The last 4,000 characters it wrote to stderr. */
  stderrTail(): string;
  /** SIGTERM to the group, SIGKILL after the grace period; resolves when it is gone. */
  stop(): Promise<void>;
}

/**
 * Spawns `command args` as the leader of a new process group tracked by the supervisor,
 * with only PATH from this process plus a temp HOME/XDG_* and `env`.
 */
export function spawnGroup(
  command: string,
  args: readonly string[],
  {
    env = {},
    cwd,
    ipc = false,
    stdin = 'ignore',
    graceMs,
    wholeEnv = false,
  }: SpawnGroupOptions = {},
): Group {
  const home = wholeEnv ? undefined : tempHome();
  const stdio: StdioOptions = ipc ? [stdin, 'pipe', 'pipe', 'ipc'] : [stdin, 'pipe', 'pipe'];
  const child = spawn(command, [...args], {
    cwd,
    detached: true,
    env: home ? { PATH: process.env.PATH ?? '', ...home.env, ...env } : env,
    stdio,
  });
  if (child.pid === undefined) {
    home?.remove();
    throw new Error(`could not start ${command}: it has no pid (not found or not executable)`);
  }
  const group = supervisor.adopt(child, graceMs === undefined ? {} : { graceMs });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  child.stdout?.resume();
  return {
    child,
    pid: child.pid,
    stderrTail: () => stderr,
    async stop() {
      await group.terminate();
      home?.remove();
    },
  };
}

/**
 * Hands a child spawned detached elsewhere (the kit's line agents) to the supervisor, so it
 * is stopped like the bench's own groups, also when the bench process exits.
 */
export function supervise(child: ChildProcess): { stop(): Promise<void> } {
  const group = supervisor.adopt(child);
  return { stop: () => group.terminate() };
}

/** Stops every group still running and lets the reaper go; the harness calls it at the end. */
export async function stopProcesses(): Promise<void> {
  await supervisor.close();
}

/** Resolves once 127.0.0.1:`port` accepts connections; throws after `timeoutMs`. */
export async function waitForPort(port: number, group: Group, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (group.child.exitCode !== null || group.child.signalCode !== null) {
      throw new Error(`process exited before listening on ${port}: ${group.stderrTail()}`);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms: ${group.stderrTail()}`,
      );
    }
    await sleep(50);
  }
}

/** The first IPC message of a child (its ready report); throws if it exits first. */
export function firstMessage<T>(group: Group, timeoutMs = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready message after ${timeoutMs} ms: ${group.stderrTail()}`)),
      timeoutMs,
    );
    group.child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
    group.child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`child exited (${signal ?? code}) before it was ready: ${group.stderrTail()}`),
      );
    });
  });
}
