/**
 * The variants part 1 of the `observe` bench compares (lib/observe-cpu.ts) and its report:
 * per variant, server CPU per call, calls/s at 16 in flight and p50 of sequential calls,
 * each beside the baseline's (the first variant) with its ratio, the deltas, and what the
 * observer counted (records written and dropped, spans received and dropped); targets:
 * CPU per call at most {@link CPU_GOAL}x the baseline's, p50 at most {@link P50_GOAL_MS} ms
 * above it.
 */
import type { Row, Target } from '../types.js';
import type { BenchObserverOptions, BenchObserverStats } from './bench-observer.js';
import { percentile } from './measure-calls.js';

/** Goal: a variant's server CPU per call at most this times the baseline's. */
export const CPU_GOAL = 1.05;
/** Goal: a variant's p50 of sequential calls at most this many ms above the baseline's. */
export const P50_GOAL_MS = 0.02;

/** Where a variant's observer sends its records. */
export interface ObserveSinks {
  /** The OTLP receiver's traces URL. */
  readonly tracesUrl: string;
  /** A fresh folder of this variant's own, for its audit log. */
  readonly dir: string;
}

/** One server setup the bench compares. */
export interface ObserveVariant {
  readonly name: string;
  /** The observer; none: the server runs without one (the baseline). */
  readonly observer?: (sinks: ObserveSinks) => BenchObserverOptions;
  /** Its spans go to the receiver (its CPU and span count are read per round). */
  readonly traced: boolean;
  /** It writes an audit log. */
  readonly audited: boolean;
  /** The baseline's twin (A/A): shows the method's noise; no targets. */
  readonly control?: boolean;
}

/** What was measured of one variant. */
export interface VariantFigures {
  readonly variant: ObserveVariant;
  /** Calls answered, warm-up included. */
  readonly answered: number;
  /** Calls and ms of the throughput chunks, and the server's and receiver's CPU ms in them. */
  readonly calls: number;
  readonly ms: number;
  readonly serverMs: number;
  readonly receiverMs: number;
  /** Spans the receiver got during the throughput chunks. */
  readonly spans: number;
  /** Latencies (ms) of the sequential calls. */
  readonly latencies: readonly number[];
  /** Server CPU per call (us) of each round. */
  readonly perRound: readonly number[];
  /** The observer's counters at the end. */
  readonly stats?: BenchObserverStats | undefined;
}

/** p50 (ms) of the sequential calls. */
export const p50Of = (f: VariantFigures) => percentile(Float64Array.from(f.latencies).sort(), 50);
const cpuPerCall = (f: VariantFigures) => (f.serverMs * 1000) / f.calls;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** What the observer of `f` counted, as rows. */
function counterRows(group: string, f: VariantFigures): Row[] {
  const name = f.variant.name;
  const rows: Row[] = [];
  if (f.variant.audited) {
    rows.push(
      {
        group,
        name: `audit records written/call (${name})`,
        value: (f.stats?.auditWritten ?? Number.NaN) / f.answered,
        unit: 'records',
      },
      {
        group,
        name: `audit records dropped (${name})`,
        value: f.stats?.auditDropped ?? Number.NaN,
        unit: 'records',
      },
    );
  }
  if (f.variant.traced) {
    rows.push(
      { group, name: `spans received/call (${name})`, value: f.spans / f.calls, unit: 'spans' },
      {
        group,
        name: `spans dropped (${name})`,
        value: f.stats?.spansDropped ?? Number.NaN,
        unit: 'spans',
      },
      {
        group,
        name: `OTLP receiver CPU/call, apart (${name})`,
        value: (f.receiverMs * 1000) / f.calls,
        unit: 'us',
      },
    );
  }
  return rows;
}

/** What part 1 reports: its rows and targets, and the baseline's server CPU per call. */
export interface ObserveCpuReport {
  readonly rows: Row[];
  readonly targets: Target[];
  /** Server CPU per call (us) without an observer. */
  readonly baselineCpuUs: number;
}

/** Rows and targets of the measured variants; the first is the baseline. */
export function reportObserveCpu(measured: readonly VariantFigures[]): ObserveCpuReport {
  const [base] = measured;
  if (!base) return { rows: [], targets: [], baselineCpuUs: Number.NaN };
  const group = 'observe: tools/call, in-process upstream';
  const rows: Row[] = [];
  const targets: Target[] = [];
  const figures = (f: VariantFigures) => ({
    'server CPU/call': { value: cpuPerCall(f), unit: 'us' },
    'calls/s @16': { value: (f.calls / f.ms) * 1000, unit: 'calls/s' },
    'p50 @1': { value: p50Of(f), unit: 'ms' },
  });
  const baseFigures = figures(base);
  for (const f of measured) {
    const name = f.variant.name;
    for (const [label, { value, unit }] of Object.entries(figures(f))) {
      const baseline = baseFigures[label as keyof typeof baseFigures];
      rows.push({
        group,
        name: `${label} (${name})`,
        value,
        unit,
        ...(f !== base && {
          baseline: { name: `${label} (${base.variant.name})`, value: baseline.value },
        }),
      });
    }
    if (f === base) continue;
    const ratio = cpuPerCall(f) / cpuPerCall(base);
    const p50Delta = p50Of(f) - p50Of(base);
    rows.push(
      {
        group,
        name: `server CPU/call delta (${name})`,
        value: cpuPerCall(f) - cpuPerCall(base),
        unit: 'us',
      },
      {
        group,
        name: `server CPU/call, median round (${name})`,
        value: median(f.perRound),
        unit: 'us',
        baseline: { name: `the same (${base.variant.name})`, value: median(base.perRound) },
      },
      { group, name: `p50 @1 delta (${name})`, value: p50Delta, unit: 'ms' },
      ...counterRows(group, f),
    );
    if (f.variant.control) continue;
    targets.push(
      {
        client: name,
        target: `server CPU/call / ${base.variant.name}'s`,
        measured: ratio,
        unit: 'x',
        goal: `<= ${CPU_GOAL}x`,
        met: ratio <= CPU_GOAL,
      },
      {
        client: name,
        target: `p50 @1 - ${base.variant.name}'s`,
        measured: p50Delta,
        unit: 'ms',
        goal: `<= +${P50_GOAL_MS} ms`,
        met: p50Delta <= P50_GOAL_MS,
      },
    );
  }
  return { rows, targets, baselineCpuUs: cpuPerCall(base) };
}
