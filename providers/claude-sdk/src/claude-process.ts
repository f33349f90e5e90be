/**
 * Spawns the Claude Code process for the SDK (`spawnClaudeCodeProcess`) through core's
 * `spawnDetached`: the leader of its own process group, registered with the daemon's
 * reaper when a supervisor is given, so that closing a session can wait for the process
 * and then for its whole group; `query.close()` alone returns before the process is gone.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import { type DetachedChild, type ProcessSupervisor, spawnDetached } from '@tutti/core';

/** How long Claude Code may take to exit by itself once its query is closed. */
const EXIT_GRACE_MS = 5_000;
/** Grace between SIGTERM and SIGKILL of what is left of the group after that. */
const KILL_GRACE_MS = 2_000;

/** Spawner plus the handle to wait for what it spawned. */
export interface ClaudeProcessTracker {
  /** Pass as `options.spawnClaudeCodeProcess`. */
  spawn(options: SpawnOptions): SpawnedProcess;
  /** Process id of the spawned Claude Code (undefined before spawn). */
  readonly pid: number | undefined;
  /**
   * Waits for the process to exit by itself (bounded), then stops its group (SIGTERM, grace,
   * SIGKILL); resolves once no process of the group is left.
   */
  stop(): Promise<void>;
}

/** Options of {@link createClaudeProcessTracker}. */
export interface ClaudeProcessTrackerOptions {
  /** Receives the process's stderr text. */
  stderr?: ((data: string) => void) | undefined;
  /** The daemon's supervisor, so the group dies with the daemon. */
  processes?: ProcessSupervisor | undefined;
}

/** Creates a tracker for one session's Claude Code process. */
export function createClaudeProcessTracker(
  options: ClaudeProcessTrackerOptions = {},
): ClaudeProcessTracker {
  let spawned: DetachedChild | undefined;
  let exited: Promise<unknown> = Promise.resolve();

  return {
    spawn(spawnOptions) {
      spawned = spawnDetached({
        command: spawnOptions.command,
        args: spawnOptions.args,
        cwd: spawnOptions.cwd,
        env: spawnOptions.env,
        signal: spawnOptions.signal,
        graceMs: KILL_GRACE_MS,
        processes: options.processes,
      });
      const child: ChildProcess = spawned.child;
      exited =
        child.exitCode !== null ? Promise.resolve() : once(child, 'exit').catch(() => undefined);
      child.on('error', () => {
        // Reported to the SDK through the exit; an abort on close lands here too.
      });
      child.stderr?.on('data', (chunk: Buffer) => options.stderr?.(chunk.toString('utf8')));
      return child as unknown as SpawnedProcess;
    },
    get pid() {
      return spawned?.child.pid;
    },
    async stop() {
      if (!spawned) return;
      await Promise.race([exited, sleep(EXIT_GRACE_MS, undefined, { ref: false })]);
      await spawned.terminate();
    },
  };
}
