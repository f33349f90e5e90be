/**
 * Part 1b of the `observe` bench: the call recorder alone, in this process, without a
 * server around it, so its own cost shows without the server's noise. Each simulated call
 * is what the `connector` server tells its observer about one `tools/call` (`begin`, the
 * upstream leg, `answered`); they run in chunks of 200, each chunk then flushed (its spans
 * exported to the OTLP receiver child, its records written). Figures per call, CPU of this
 * process (`process.cpuUsage()`, every thread): on the call path (the recorder, the spans'
 * making, the audit entry), and in all (the flush's serializing, hashing, writing and
 * sending included). The variants take
 * turns, their order flipping each round.
 */
import { join } from 'node:path';
import type { Row, Target } from '../types.js';
import { type BenchObserver, openBenchObserver } from './bench-observer.js';
import { QUICK } from './measure-calls.js';
import { CPU_GOAL, type ObserveSinks, type ObserveVariant } from './observe-cpu-report.js';

type Internal = typeof import('@tutti/core/internal');
type Observer = BenchObserver['observer'];
type Arrival = Parameters<Observer['begin']>[0];
type Binding = Parameters<NonNullable<ReturnType<Observer['begin']>>['upstream']>[0];

const ROUNDS = QUICK ? 2 : 6;
/**
 * Calls between two flushes: 400 spans, under the processor's batch of 512 (which would
 * export inside a span's end) and its queue of 2,048 (which would drop spans); 200
 * records, under the audit's early write at 512.
 */
const CHUNK = 200;
const CALLS = QUICK ? 2_000 : 10_000;
const WARMUP_CALLS = QUICK ? 2_000 : 10_000;

/** A variant's open observer and its CPU totals (ms). */
interface Subject {
  readonly variant: ObserveVariant;
  readonly observed: BenchObserver;
  calls: number;
  callPathMs: number;
  allMs: number;
}

const session = { tokenId: 'bench-token', workspaceId: 'bench', agentSessionId: 'bench-session' };
const result = { content: [{ type: 'text' as const, text: 'Echo: hello from the observe bench' }] };
const binding: Binding = {
  connectorKey: 'local',
  generation: 1,
  localName: 'local_echo',
  upstreamName: 'echo',
  client: {
    protocolVersion: '2025-06-18',
    transport: 'pipe',
    callTool: async () => result,
  },
  isCurrent: () => true,
};

/** One call as the server reports it to `observer`. */
function simulateCall(observer: Observer, id: number): void {
  const arrival: Arrival = {
    session,
    protocol: '2025-06-18',
    requestId: id,
    params: { name: 'local_echo', arguments: { message: 'hello from the observe bench' } },
    headers: {},
    startedAt: performance.now(),
  };
  const call = observer.begin(arrival);
  call?.upstream(binding);
  call?.upstreamEnded(result, undefined);
  call?.answered({ resultBytes: 56, aborted: false });
}

function cpuNowMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * `count` calls through `s` in chunks of {@link CHUNK}, each followed by a flush; adds the
 * CPU of the calls and of the flushes to its totals.
 */
async function batch(s: Subject, count: number, gc: () => void): Promise<void> {
  gc();
  for (let done = 0; done < count; done += CHUNK) {
    const t0 = cpuNowMs();
    for (let i = 0; i < CHUNK; i += 1) simulateCall(s.observed.observer, s.calls + i);
    const t1 = cpuNowMs();
    await s.observed.flush();
    s.calls += CHUNK;
    s.callPathMs += t1 - t0;
    s.allMs += cpuNowMs() - t0;
  }
}

/**
 * Runs the variants that have an observer through their recorder alone; `sinks` names the
 * receiver and a folder under which each variant's audit folder is made;
 * `baselineServerUs` is part 1's server CPU per call without an observer.
 */
export async function measureRecorderAlone(
  internal: Internal,
  variants: readonly ObserveVariant[],
  sinks: ObserveSinks,
  baselineServerUs: number,
  gc: () => void,
): Promise<{ rows: Row[]; targets: Target[] }> {
  const subjects: Subject[] = [];
  try {
    for (const [index, variant] of variants.entries()) {
      if (!variant.observer) continue;
      const options = variant.observer({ ...sinks, dir: join(sinks.dir, `alone-${index}`) });
      const observed = await openBenchObserver(internal, options);
      subjects.push({ variant, observed, calls: 0, callPathMs: 0, allMs: 0 });
    }
    for (const s of subjects) await batch(s, WARMUP_CALLS, gc);
    for (const s of subjects) Object.assign(s, { calls: 0, callPathMs: 0, allMs: 0 });
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const s of r % 2 === 0 ? subjects : [...subjects].reverse()) await batch(s, CALLS, gc);
    }
  } finally {
    for (const s of subjects) await s.observed.close();
  }
  return reportAlone(subjects, baselineServerUs);
}

/**
 * Rows of the recorders alone, and an estimate per variant against the goal: the server's
 * CPU per call without an observer (`baselineServerUs`, part 1) plus the recorder's own.
 */
function reportAlone(
  subjects: readonly Subject[],
  baselineServerUs: number,
): { rows: Row[]; targets: Target[] } {
  const group = 'observe: the call recorder alone, in the bench process';
  const rows: Row[] = [];
  const targets: Target[] = [];
  for (const s of subjects) {
    const name = s.variant.name;
    const allUs = (s.allMs * 1000) / s.calls;
    rows.push(
      {
        group,
        name: `CPU/call on the call path (${name})`,
        value: (s.callPathMs * 1000) / s.calls,
        unit: 'us',
      },
      { group, name: `CPU/call with its flush (${name})`, value: allUs, unit: 'us' },
      {
        group,
        name: `server without observer + this, estimate (${name})`,
        value: baselineServerUs + allUs,
        unit: 'us',
        baseline: { name: 'server CPU/call (no observer)', value: baselineServerUs },
      },
    );
    const dropped = s.observed.stats().spansDropped;
    if (dropped > 0)
      rows.push({ group, name: `spans dropped (${name})`, value: dropped, unit: 'spans' });
    const ratio = (baselineServerUs + allUs) / baselineServerUs;
    targets.push({
      client: name,
      target: "estimate: (no observer's server CPU/call + recorder alone) / no observer's",
      measured: ratio,
      unit: 'x',
      goal: `<= ${CPU_GOAL}x`,
      met: ratio <= CPU_GOAL,
    });
  }
  return { rows, targets };
}
