/**
 * Spawns a process as the leader of its own group with piped stdio and hands back the raw
 * `ChildProcess` (for engines that speak over its stdio, or SDKs that want a ChildProcess)
 * together with the stop of its whole group. With the daemon's supervisor the group is
 * also registered with the reaper, so it dies with the daemon however the daemon ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { ProcessSupervisor } from './supervisor.js';
import { trackProcessGroup } from './tracked-group.js';

/** What to run; `env` is the child's whole environment. */
export interface SpawnDetachedOptions {
  command: string;
  args?: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Aborting kills the leader (Node's `spawn` option); the group follows it. */
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL of the group, in ms (default 2000). */
  graceMs?: number;
  /** The daemon's supervisor; without one the group is tracked by this call alone. */
  processes?: ProcessSupervisor;
}

/** A spawned child leading its own group. */
export interface DetachedChild {
  /** The child, stdio piped; `pid` is undefined when it failed to start ('error' follows). */
  readonly child: ChildProcess;
  /** Resolves once the leader exited and no live member of its group is left. */
  readonly gone: Promise<void>;
  /** SIGTERM to the group, SIGKILL after the grace period; resolves when it is gone. Idempotent. */
  terminate(): Promise<void>;
}

/**
 * Spawns `options.command` detached, synchronously (an SDK's spawn callback must return at
 * once); a start failure arrives as the child's 'error' event.
 * @example const { child, terminate } = spawnDetached({ command, args, env, processes });
 */
export function spawnDetached(options: SpawnDetachedOptions): DetachedChild {
  const child = spawn(options.command, [...(options.args ?? [])], {
    cwd: options.cwd,
    env: { ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    signal: options.signal,
  });
  if (child.pid === undefined) {
    return { child, gone: Promise.resolve(), terminate: () => Promise.resolve() };
  }
  const tracking = { graceMs: options.graceMs };
  const group = options.processes
    ? options.processes.adopt(child, tracking)
    : trackProcessGroup(child, tracking);
  return { child, gone: group.gone, terminate: () => group.terminate() };
}
