/**
 * One daemon per tutti home: `<home>/run/daemon.lock` held with an exclusive `flock` for
 * the daemon's whole life. The kernel drops the lock when the process dies however it
 * dies (kill -9 included), so a lock left behind never blocks the next start, and two
 * daemons started at the same moment cannot both get it. Node has no flock binding;
 * koffi (already used for the subreaper's prctl) calls libc's. The descriptor is opened
 * close-on-exec (libuv always does), so no upstream inherits the lock.
 *
 * The holder writes its pid into the file after it took the lock, for the messages of
 * the daemon that lost and for clients telling a starting daemon from a missing one
 * ({@link homeLockHolder}, which never touches the lock itself).
 */
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { TuttiError } from '../errors/index.js';

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
/** EWOULDBLOCK (= EAGAIN): Linux 11, macOS and the BSDs 35. */
const WOULD_BLOCK = new Set([11, 35]);

interface Flock {
  flock(fd: number, operation: number): number;
  errno(): number;
}

let flockLib: Flock | null | undefined;

function loadFlock(): Flock | null {
  if (flockLib !== undefined) return flockLib;
  flockLib = null;
  const name =
    process.platform === 'linux'
      ? 'libc.so.6'
      : process.platform === 'darwin'
        ? 'libSystem.B.dylib'
        : undefined;
  if (!name) return flockLib;
  try {
    const require = createRequire(import.meta.url);
    const koffi = require('koffi') as typeof import('koffi');
    const lib = koffi.load(name);
    const flock = lib.func('int flock(int fd, int operation)') as (
      fd: number,
      op: number,
    ) => number;
    flockLib = { flock, errno: () => koffi.errno() };
  } catch {
    flockLib = null;
  }
  return flockLib;
}

/** Path of the lock file of `home`. */
export function homeLockPath(home: string): string {
  return join(home, 'run', 'daemon.lock');
}

/** The lock a running daemon holds on its home. */
export interface HomeLock {
  /** False where flock is not available (the daemon then runs unguarded and says so). */
  readonly held: boolean;
  /** Releases the lock and closes its descriptor; idempotent. */
  release(): void;
}

function holderPid(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the exclusive lock on `home` (creating `run/` 0700 and the lock file 0600) or
 * throws TUTTI_ERR_DAEMON_ALREADY_RUNNING at once when another process holds it.
 */
export function acquireHomeLock(home: string): HomeLock {
  const path = homeLockPath(home);
  mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
  const lib = loadFlock();
  if (!lib) return { held: false, release() {} };
  const fd = openSync(path, 'a+', 0o600);
  if (lib.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = lib.errno();
    closeSync(fd);
    if (WOULD_BLOCK.has(errno)) {
      throw new TuttiError('TUTTI_ERR_DAEMON_ALREADY_RUNNING', {
        pid: holderPid(path) ?? 'unknown',
        home,
      });
    }
    throw new TuttiError('TUTTI_ERR_DAEMON_LOCK_FAILED', { path, errno });
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`);
  let open = true;
  return {
    held: true,
    release() {
      if (!open) return;
      open = false;
      try {
        ftruncateSync(fd, 0);
      } catch {
        // The pid is only a hint; the lock is what counts.
      }
      lib.flock(fd, LOCK_UN);
      closeSync(fd);
    },
  };
}

/** True when `/proc/locks` lists an exclusive flock of `pid` on the file with inode `ino`. */
function procLocksHold(pid: number, ino: number): boolean | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  // e.g. "1: FLOCK  ADVISORY  WRITE 4242 00:2d:1234567 0 EOF"
  return text.split('\n').some((line) => {
    const fields = line.trim().split(/\s+/);
    return (
      fields[1] === 'FLOCK' &&
      fields[3] === 'WRITE' &&
      Number(fields[4]) === pid &&
      Number(fields[5]?.split(':')[2]) === ino
    );
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The pid of the daemon that holds `home`'s lock, or undefined when none does. Read
 * without touching the lock (taking it, even shared and for a moment, could make a
 * daemon starting at that moment give up): Linux's `/proc/locks` is asked, elsewhere
 * the recorded pid must be alive.
 */
export function homeLockHolder(home: string): number | undefined {
  const path = homeLockPath(home);
  const pid = holderPid(path);
  if (pid === undefined || !alive(pid)) return undefined;
  let ino: number;
  try {
    ino = statSync(path).ino;
  } catch {
    return undefined;
  }
  return procLocksHold(pid, ino) === false ? undefined : pid;
}
