/**
 * One ACP agent process: spawned in its own process group with piped stdio, and killed
 * as a whole group (the agent's children too) on close.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { TuttiError } from '@tutti/core';

/** Grace between SIGTERM and SIGKILL of the agent's process group. */
const KILL_GRACE_MS = 3_000;

/** A spawned agent. */
export interface AgentProcess {
  readonly child: ChildProcess & { pid: number };
  /** Resolves with a description of how the process ended. */
  readonly exited: Promise<string>;
  /** Kills the process group: SIGTERM, then SIGKILL after a grace. Idempotent. */
  kill(): Promise<void>;
}

/** Spawns `command` detached (own group); rejects when it cannot be started. */
export async function spawnAgent(options: {
  provider: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
}): Promise<AgentProcess> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
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
  const spawned = child as ChildProcess & { pid: number };
  let killing: Promise<void> | undefined;
  const kill = () => {
    killing ??= killGroup(spawned, exited);
    return killing;
  };
  return { child: spawned, exited, kill };
}

async function killGroup(child: ChildProcess & { pid: number }, exited: Promise<string>) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  signalGroup(child.pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'grace'>((resolve) => {
    timer = setTimeout(() => resolve('grace'), KILL_GRACE_MS);
  });
  if ((await Promise.race([exited, grace])) === 'grace') {
    signalGroup(child.pid, 'SIGKILL');
    await exited;
  }
  clearTimeout(timer);
  // The leader is gone; make sure no child of it outlives the session.
  signalGroup(child.pid, 'SIGKILL');
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
