/**
 * One tracked process group: a spawned child that leads its own group (spawned with
 * `detached: true`). When the leader ends on its own, what it left in the group is killed;
 * `terminate()` stops the whole group and resolves only once no live member is left.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isProcessGroupAlive,
  signalGroup,
  terminateGroup,
  waitForGroupExit,
} from './process-group.js';
import { isSameProcessRunning, type ProcEntry, signalIdentity } from './process-tree.js';

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
  /**
   * The live processes of the group's tree outside the group (they left it with `setsid`
   * or lost their parent); they are stopped with the group.
   */
  outsiders?: () => ProcEntry[];
  /** Told about outsiders that were stopped, once they are gone (to collect adopted ones). */
  onOutsidersGone?: (gone: readonly ProcEntry[]) => void | Promise<void>;
}

/** Resolves once none of `entries` runs any more, false after `timeoutMs`. */
async function waitForGone(entries: readonly ProcEntry[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (entries.some(isSameProcessRunning)) {
    if (Date.now() >= deadline) return false;
    await sleep(10);
  }
  return true;
}

/** SIGTERM, then SIGKILL after `graceMs`, to processes outside the group. */
async function stopOutsiders(entries: readonly ProcEntry[], graceMs: number): Promise<void> {
  if (entries.length === 0) return;
  for (const entry of entries) signalIdentity(entry, 'SIGTERM');
  if (await waitForGone(entries, graceMs)) return;
  for (const entry of entries) signalIdentity(entry, 'SIGKILL');
  await waitForGone(entries, KILL_WAIT_MS);
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
  const outsiders = () => {
    try {
      return options.outsiders?.() ?? [];
    } catch {
      return [];
    }
  };
  const stopTree = async (entries: readonly ProcEntry[], grace: number) => {
    await stopOutsiders(entries, grace);
    if (entries.length > 0) await options.onOutsidersGone?.(entries);
  };

  const leaderExit = new Promise<LeaderExit>((resolve) => {
    const ended = (code: number | null, signal: NodeJS.Signals | null) => {
      // A leader that died on its own leaves orphans holding its pipes: kill them now,
      // and what left the group too.
      if (!stopping) {
        const left = outsiders();
        signalGroup(pgid, 'SIGKILL');
        void stopTree(left, 0);
      }
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
        const left = outsiders();
        for (const entry of left) signalIdentity(entry, 'SIGTERM');
        await terminateGroup(pgid, graceMs, KILL_WAIT_MS);
        await stopTree(left, graceMs);
        // The group is gone, so the leader is too: let its 'exit' land before resolving.
        if (!isProcessGroupAlive(pgid)) await leaderExit;
      })();
      return stopping;
    },
  };
}
