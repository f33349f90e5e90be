/**
 * A real `tuttid --json` process for the benches: spawned through core's process
 * supervisor (its own group, HOME/XDG_* in a temp dir), timed from spawn to its ready and
 * settled lines,
 * measured through `/proc` (its own VmRSS and the memory of the upstream processes it
 * started), and stopped with SIGTERM (SIGKILL after a grace period), with every upstream it
 * left behind. Linux only (reads `/proc`).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TUTTID_BIN } from '@tutti/test-kit';
import { descendantsOf } from '@tutti/test-kit/proc-tree';
import { type ReadyLine, readTuttidLines, type SettledLine } from '@tutti/test-kit/tuttid';
import { spawnGroup } from './processes.js';

export type { ReadyLine, SettledLine };

/** The `tuttid` bin of the CLI package (runs `cli/dist`). */
export const TUTTID = TUTTID_BIN;

/** A field of `/proc/<pid>/status` in KiB (e.g. `VmRSS`), or undefined when gone. */
export function procStatusKiB(pid: number, field: string): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Proportional set size of `pid` in KiB (shared pages split between their users). */
export function pssKiB(pid: number): number | undefined {
  try {
    const match = /^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of the `/proc/<pid>/stat` times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU milliseconds (user + system, all threads) process `pid` used so far, with
 * `reaped` also that of the children it waited for; 0 once it is gone. Resolution 10 ms.
 */
export function cpuMs(pid: number | 'self', reaped = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // utime, stime, cutime, cstime are fields 14-17; the fields after ')' start at field 3.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const ticks = fields[11]! + fields[12]! + (reaped ? fields[13]! + fields[14]! : 0);
    return (ticks * 1000) / USER_HZ;
  } catch {
    return 0;
  }
}

/** Every live process whose parent chain leads to `root` (not `root` itself). */
export const descendants = descendantsOf;

/**
 * True when the `tuttid` at `bin` takes `--sandbox` (issue 31; an older build of an A/B run
 * refuses the flag).
 */
function takesSandbox(bin: string): boolean {
  if (bin === TUTTID) return true;
  try {
    return readFileSync(join(dirname(bin), '../dist/tuttid-args.js'), 'utf8').includes('sandbox');
  } catch {
    return false;
  }
}

/** A running `tuttid`. */
export interface Tuttid {
  readonly pid: number;
  readonly ready: ReadyLine;
  /** Milliseconds from spawn to the ready line (its servers listen). */
  readonly readyMs: number;
  /** The settled line; undefined when started `until: 'ready'` and not settled yet. */
  readonly settled: SettledLine | undefined;
  /** Milliseconds from spawn to the settled line (0 while not settled). */
  readonly settledMs: number;
  /** Pids of the processes this daemon started. */
  children(): number[];
  /** SIGTERM, SIGKILL after the grace period; resolves when it and its upstreams are gone. */
  stop(): Promise<void>;
}

/**
 * Spawns `tuttid --home <home> --json --no-demo --sandbox off` (unless `extraArgs` names a
 * `--sandbox`) and resolves once it printed its settled line (every connector made its
 * first attempt; `until: 'ready'`: its ready line, printed as soon as its servers listen). `env` is added to its environment (e.g. the CODEX_HOME
 * its Codex sessions start from); `nodeArgs` go to its Node (e.g. a bench preload); `bin` is
 * another build's `cli/bin/tuttid.js` (A/B runs; default this build's).
 * Rejects (after stopping it) when it exits first or does not get there within `timeoutMs`.
 */
export async function startTuttid(
  home: string,
  {
    timeoutMs = 120_000,
    extraArgs = [] as readonly string[],
    env = {} as Record<string, string>,
    nodeArgs = [] as readonly string[],
    until = 'settled' as 'ready' | 'settled',
    bin = TUTTID,
  } = {},
): Promise<Tuttid> {
  const started = performance.now();
  const group = spawnGroup(
    process.execPath,
    [
      ...nodeArgs,
      bin,
      '--home',
      home,
      '--json',
      '--no-demo',
      // The fixture servers run from the test kit's folder, which a sandbox does not give
      // them (docs/sandbox.md): isolated only where a bench asks (`extraArgs`).
      ...(extraArgs.some((arg) => arg.startsWith('--sandbox')) || !takesSandbox(bin)
        ? []
        : ['--sandbox', 'off']),
      ...extraArgs,
    ],
    { graceMs: 10_000, env },
  );
  const { child, pid } = group;
  const seen: {
    ready?: ReadyLine;
    readyMs: number;
    settled?: SettledLine;
    settledMs: number;
  } = { readyMs: 0, settledMs: 0 };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = readTuttidLines(child, exited);
  void lines.ready.then((line) => {
    seen.readyMs = performance.now() - started;
    seen.ready = line;
  });
  void lines.settled.then((line) => {
    seen.settledMs = performance.now() - started;
    seen.settled = line;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const reached = await Promise.race([
      until === 'ready' ? lines.ready : lines.settled,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`tuttid not ${until} after ${timeoutMs} ms: ${group.stderrTail()}`)),
          timeoutMs,
        );
      }),
    ]);
    clearTimeout(timer);
    if (!reached) {
      const { exitCode, signalCode } = child;
      throw new Error(
        `tuttid exited (${signalCode ?? exitCode}) before ${until}: ${group.stderrTail()}`,
      );
    }
    return {
      pid,
      ready: seen.ready as ReadyLine,
      readyMs: seen.readyMs,
      get settled() {
        return seen.settled;
      },
      get settledMs() {
        return seen.settledMs;
      },
      children: () => descendants(pid),
      stop: () => group.stop(),
    };
  } catch (error) {
    clearTimeout(timer);
    await group.stop();
    throw error;
  }
}
