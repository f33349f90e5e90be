/**
 * One ACP agent process: spawned through core's `spawnDetached` as the leader of its own
 * process group with piped stdio (registered with the daemon's reaper when the session
 * context carries the supervisor), and stopped as a whole group, its children too.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { type ProcessSupervisor, spawnDetached, TuttiError } from '@tutti/core';

/** Grace between SIGTERM and SIGKILL of the agent's process group. */
const KILL_GRACE_MS = 3_000;

/** A spawned agent. */
export interface AgentProcess {
  readonly child: ChildProcess & { pid: number };
  /** Resolves with a description of how the process ended. */
  readonly exited: Promise<string>;
  /** Stops the process group (SIGTERM, grace, SIGKILL); resolves once all of it is gone. Idempotent. */
  kill(): Promise<void>;
}

/** Spawns `command` detached (own group); rejects when it cannot be started. */
export async function spawnAgent(options: {
  provider: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** The daemon's supervisor (`ProviderSessionContext.processes`), when there is one. */
  processes?: ProcessSupervisor | undefined;
}): Promise<AgentProcess> {
  const { child, terminate } = spawnDetached({
    command: options.command,
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    graceMs: KILL_GRACE_MS,
    processes: options.processes,
  });
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
  });
  try {
    await once(child, 'spawn');
  } catch (error) {
    throw new TuttiError(
      'TUTTI_ERR_PROVIDER_SPAWN_FAILED',
      {
        provider: options.provider,
        command: options.command,
        reason: error instanceof Error ? error.message : String(error),
      },
      { cause: error },
    );
  }
  // Drain stderr so a chatty agent never blocks on a full pipe.
  child.stderr?.resume();
  return { child: child as ChildProcess & { pid: number }, exited, kill: terminate };
}
