/**
 * Bounded call loops of the network benches: latency samples at 1 in flight and
 * throughput at N in flight, each stopped by a call count or a time budget, whichever
 * comes first, plus percentiles. `BENCH_QUICK=1` shrinks every budget for a smoke run.
 */

/** True in the quick smoke mode. */
export const QUICK = process.env.BENCH_QUICK === '1';

/** Budgets of one measuring chunk; a bench runs several chunks (rounds) per target. */
export const BUDGET = Object.freeze(
  QUICK
    ? { rounds: 1, warmupCalls: 50, latencyCalls: 300, throughputCalls: 1500, chunkMs: 250 }
    : { rounds: 4, warmupCalls: 1000, latencyCalls: 1000, throughputCalls: 10_000, chunkMs: 500 },
);

/** One call of a measured unit. */
export type Call = () => Promise<unknown>;

/** Calls and milliseconds of one throughput chunk. */
export interface Chunk {
  readonly calls: number;
  readonly ms: number;
}

/** Percentiles (ms) of a set of latency samples. */
export interface Summary {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly 'p99.9': number;
  readonly max: number;
  readonly n: number;
}

/** Runs `call` one after the other (warm-up) `count` times or for `maxMs`, whichever ends first. */
export async function warmUp(
  call: Call,
  count: number = BUDGET.warmupCalls,
  maxMs: number = 3 * BUDGET.chunkMs,
): Promise<void> {
  const deadline = performance.now() + maxMs;
  for (let i = 0; i < count && performance.now() < deadline; i += 1) await call();
}

/** Latencies (ms) of sequential calls, appended to `into`; stops at `calls` or `maxMs`. */
export async function latencySamples(
  call: Call,
  into: number[] = [],
  { calls = BUDGET.latencyCalls as number, maxMs = BUDGET.chunkMs as number } = {},
): Promise<number[]> {
  const started = performance.now();
  for (let i = 0; i < calls; i += 1) {
    const t0 = performance.now();
    await call();
    const t1 = performance.now();
    into.push(t1 - t0);
    if (t1 - started > maxMs) break;
  }
  return into;
}

/**
 * Keeps `inFlight` calls running until `calls` were started or `maxMs` passed; resolves to
 * `{ calls, ms }` of the calls that completed. With `samples`, each call's latency (ms) is
 * appended to it.
 */
export async function throughput(
  call: Call,
  {
    inFlight = 16,
    calls = BUDGET.throughputCalls as number,
    maxMs = BUDGET.chunkMs as number,
    samples,
  }: { inFlight?: number; calls?: number; maxMs?: number; samples?: number[] } = {},
): Promise<Chunk> {
  let started = 0;
  let done = 0;
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  async function worker() {
    while (started < calls && performance.now() < deadline) {
      started += 1;
      const c0 = performance.now();
      await call();
      samples?.push(performance.now() - c0);
      done += 1;
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { calls: done, ms: performance.now() - t0 };
}

/** Nearest-rank percentile `p` (0..100) of ascending `sorted`. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** p50, p90, p99, p99.9, max and count of latency samples (ms). */
export function summarize(samples: readonly number[]): Summary {
  const sorted = Float64Array.from(samples).sort();
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    'p99.9': percentile(sorted, 99.9),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    n: sorted.length,
  };
}

/** Sums throughput chunks into calls per second. */
export function callsPerSecond(chunks: readonly Chunk[]): number {
  const calls = chunks.reduce((sum, chunk) => sum + chunk.calls, 0);
  const ms = chunks.reduce((sum, chunk) => sum + chunk.ms, 0);
  return ms > 0 ? (calls / ms) * 1000 : Number.NaN;
}
