/**
 * Wall-time and CPU-time sampling of short-lived commands for the CLI bench: each command
 * is one `spawnSync` (so every figure carries the same fork/exec cost), commands run in
 * alternation with a rotating order, and a non-zero exit fails the bench instead of timing
 * an error path. CPU time (user + system of the child and its waited-for children) comes
 * from this process's `cutime`/`cstime` in `/proc/self/stat`, so it needs Linux and has
 * clock-tick resolution (10 ms): use its mean, not its median.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU ms of every child this process has waited for so far. */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name; cutime and cstime are fields 16 and 17 of the line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

/** One command to time. */
export interface TimedCommand {
  readonly name: string;
  readonly command: string;
  readonly args?: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd?: string;
}

/** Wall and CPU milliseconds of the runs of one command. */
export interface Samples {
  readonly ms: number[];
  readonly cpuMs: number[];
}

/** Runs `command` once: `{ ms, cpuMs }` (wall and CPU time); throws when it fails. */
export function timeCommand({ name, command, args = [], env, cwd }: TimedCommand): {
  ms: number;
  cpuMs: number;
} {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const result = spawnSync(command, [...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const elapsed = performance.now() - started;
  const cpuMs = childrenCpuMs() - cpuBefore;
  if (result.error || result.status !== 0) {
    throw new Error(
      `${name} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}): ${String(result.stderr).slice(-500)}`,
    );
  }
  return { ms: elapsed, cpuMs };
}

/**
 * Warms each command up `warmup` times, then runs `runs` rounds; round i runs the commands
 * starting at position i (so none always runs first). Returns name -> `{ ms, cpuMs }` lists.
 */
export function alternate(
  commands: readonly TimedCommand[],
  { runs, warmup = 2 }: { runs: number; warmup?: number },
): Map<string, Samples> {
  for (let i = 0; i < warmup; i += 1) for (const command of commands) timeCommand(command);
  const samples = new Map<string, Samples>(
    commands.map((command) => [command.name, { ms: [], cpuMs: [] }]),
  );
  for (let round = 0; round < runs; round += 1) {
    for (let j = 0; j < commands.length; j += 1) {
      const command = commands[(round + j) % commands.length]!;
      const { ms, cpuMs } = timeCommand(command);
      samples.get(command.name)!.ms.push(ms);
      samples.get(command.name)!.cpuMs.push(cpuMs);
    }
  }
  return samples;
}

/** The median and mean of `values`. */
export function summary(values: readonly number[]): { p50: number; mean: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const p50 = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { p50, mean: values.reduce((sum, value) => sum + value, 0) / values.length };
}
