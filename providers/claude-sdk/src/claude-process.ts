/**
 * Spawns the Claude Code process for the SDK (`spawnClaudeCodeProcess`) in its own process
 * group, so that closing a session can wait for it to exit and then end anything it left
 * running; `query.close()` alone returns before the process is gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';

const EXIT_GRACE_MS = 5000;

/** Spawner plus the handle to wait for what it spawned. */
export interface ClaudeProcessTracker {
  /** Pass as `options.spawnClaudeCodeProcess`. */
  spawn(options: SpawnOptions): SpawnedProcess;
  /** Process id of the spawned Claude Code (undefined before spawn). */
  readonly pid: number | undefined;
  /** Waits for the process to exit (SIGKILLs its group after a grace period), then kills leftovers. */
  stop(): Promise<void>;
}

/** Creates a tracker; `stderr` receives the process's stderr text, if given. */
export function createClaudeProcessTracker(stderr?: (data: string) => void): ClaudeProcessTracker {
  let child: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();

  const signalGroup = (signal: NodeJS.Signals) => {
    if (child?.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };

  return {
    spawn(options) {
      child = spawn(options.command, options.args, {
        cwd: options.cwd,
        env: options.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        signal: options.signal,
      });
      exited =
        child.exitCode !== null ? Promise.resolve() : once(child, 'exit').catch(() => undefined);
      child.on('error', () => {
        // Reported to the SDK through the exit; an abort on close lands here too.
      });
      child.stderr?.on('data', (chunk: Buffer) => stderr?.(chunk.toString('utf8')));
      return child as unknown as SpawnedProcess;
    },
    get pid() {
      return child?.pid;
    },
    async stop() {
      if (!child) return;
      const graceful = await Promise.race([
        exited.then(() => true),
        sleep(EXIT_GRACE_MS).then(() => false),
      ]);
      if (!graceful) {
        signalGroup('SIGKILL');
        await exited;
      }
      signalGroup('SIGKILL');
    },
  };
}
