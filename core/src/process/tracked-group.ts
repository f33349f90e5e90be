/**
 * One tracked process group: a spawned child that leads its own group (spawned with
 * `detached: true`). When the leader ends on its own, what it left in the group is killed;
 * `terminate()` stops the whole group and resolves only once no live member is left.
 */
import type { ChildProcess } from 'node:child_process';
import {
  isProcessGroupAlive,
  signalGroup,
  terminateGroup,
  waitForGroupExit,
} from './process-group.js';

/** Default time between SIGTERM and SIGKILL of a group, in ms. */
export const DEFAULT_GROUP_GRACE_MS = 2_000;

/** Longest wait for a group to go after SIGKILL (only an uninterruptible process outlasts it). */
const KILL_WAIT_MS = 5_000;

/** How the leader of a group ended. */
export interface LeaderExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Handle on a process group whose leader this process spawned. */
export interface TrackedGroup {
  /** Process-group id (the leader's pid). */
  readonly pgid: number;
  /** True once `terminate()` was called (the end is then expected). */
  readonly stopping: boolean;
  /** Resolves when the leader exited. */
  readonly leaderExit: Promise<LeaderExit>;
  /** Resolves once the leader exited and no live member of the group is left. */
  readonly gone: Promise<void>;
  /** SIGTERM to the group, SIGKILL after the grace period; resolves when it is gone. Idempotent. */
  terminate(): Promise<void>;
}

/** Options of {@link trackProcessGroup}. */
export interface TrackGroupOptions {
  /** Time between SIGTERM and SIGKILL, in ms (default 2000). */
  graceMs?: number;
}

/**
 * Tracks `child`, which must have been spawned `detached` (so it leads its own group);
 * call it right after `spawn`, before anything can yield.
 * @example const group = trackProcessGroup(spawn(cmd, args, { detached: true }));
 */
export function trackProcessGroup(
  child: ChildProcess,
  options: TrackGroupOptions = {},
): TrackedGroup {
  const pgid = child.pid;
  if (pgid === undefined) throw new TypeError('cannot track a process that did not start');
  const graceMs = options.graceMs ?? DEFAULT_GROUP_GRACE_MS;
  let stopping: Promise<void> | undefined;

  const leaderExit = new Promise<LeaderExit>((resolve) => {
    const ended = (code: number | null, signal: NodeJS.Signals | null) => {
      // A leader that died on its own leaves orphans holding its pipes: kill them now.
      if (!stopping) signalGroup(pgid, 'SIGKILL');
      resolve({ code, signal });
    };
    if (child.exitCode !== null || child.signalCode !== null) {
      ended(child.exitCode, child.signalCode);
    } else {
      child.once('exit', ended);
    }
  });

  const gone = leaderExit.then(async () => {
    await (stopping ?? waitForGroupExit(pgid, graceMs + KILL_WAIT_MS));
  });

  return {
    pgid,
    get stopping() {
      return stopping !== undefined;
    },
    leaderExit,
    gone,
    terminate() {
      stopping ??= (async () => {
        await terminateGroup(pgid, graceMs, KILL_WAIT_MS);
        // The group is gone, so the leader is too: let its 'exit' land before resolving.
        if (!isProcessGroupAlive(pgid)) await leaderExit;
      })();
      return stopping;
    },
  };
}
