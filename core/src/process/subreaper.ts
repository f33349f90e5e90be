/**
 * Linux child subreaper: with `prctl(PR_SET_CHILD_SUBREAPER)` a process that leaves its
 * parent behind (a grandchild that double-forked, or whose parent died) is re-parented to
 * this process instead of to PID 1, so the daemon still sees every process of its
 * upstreams' trees (as its own children) and can end them. Node has no binding for it;
 * `koffi` (a maintained FFI with prebuilt binaries in its platform packages, no build
 * step) calls libc. Elsewhere, or when libc cannot be loaded, everything here is a no-op
 * that says so.
 *
 * Being a subreaper makes this process responsible for waiting on what it adopts:
 * {@link reapChild} collects one exited adopted child. Only pids known to be adopted may
 * be passed (never a child Node spawned itself: libuv must wait on those).
 */
import { createRequire } from 'node:module';

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

interface Libc {
  prctl(option: number, arg2: number, arg3: number, arg4: number, arg5: number): number;
  waitpid(pid: number, status: number[], options: number): number;
}

let libc: Libc | null | undefined;
let subreaper = false;

function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (process.platform !== 'linux') return libc;
  try {
    const require = createRequire(import.meta.url);
    const koffi = require('koffi') as typeof import('koffi');
    const lib = koffi.load('libc.so.6');
    libc = {
      prctl: lib.func(
        'int prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5)',
      ),
      waitpid: lib.func('int waitpid(int pid, _Out_ int *status, int options)'),
    } as Libc;
  } catch {
    libc = null;
  }
  return libc;
}

/**
 * Makes this process the child subreaper of its descendants (Linux). Returns true when it
 * is one (also when it already was), false where that is not possible.
 */
export function becomeChildSubreaper(): boolean {
  if (subreaper) return true;
  const lib = loadLibc();
  if (!lib) return false;
  subreaper = lib.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0;
  return subreaper;
}

/** True once {@link becomeChildSubreaper} succeeded in this process. */
export function isChildSubreaper(): boolean {
  return subreaper;
}

/**
 * Collects adopted child `pid` if it has exited (never blocks). Returns true when it was
 * collected. Only for a process this one adopted as subreaper, never one it spawned.
 */
export function reapChild(pid: number): boolean {
  const lib = loadLibc();
  if (!lib || !subreaper) return false;
  return lib.waitpid(pid, [0], WNOHANG) === pid;
}
