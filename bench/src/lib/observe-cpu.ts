/**
 * Part 1 of the `observe` bench: what the daemon's call recorder costs on `tools/call`.
 * One `connector` server child per variant (no observer: the baseline; the recorder with
 * tracing off; tracing to a loopback OTLP receiver in its own process), all over the
 * in-process echo upstream, measured in interleaved rounds (the order rotates and flips
 * each round, so load drifting on the machine hits every variant alike): server CPU per
 * call at 16 in flight (`/proc`, the exporter's work included: the server is asked to
 * flush before each reading), calls/s at 16 in flight, and p50 of sequential calls.
 */
import type { RequestConnection } from '../clients/connection.js';
import { connectRawHttp } from '../clients/raw-http.js';
import type { Row, Target } from '../types.js';
import type { BenchObserverOptions } from './bench-observer.js';
import { cpuMs } from './daemon-process.js';
import { latencySamples, percentile, QUICK, throughput, warmUp } from './measure-calls.js';
import type { OtlpReceiverProcess } from './otlp-receiver-process.js';
import { type ConnectorChild, startConnector } from './targets.js';

/** One server setup the bench compares. */
export interface ObserveVariant {
  readonly name: string;
  /** The observer; none: the server runs without one (the baseline). */
  readonly observer?: (receiver: OtlpReceiverProcess) => BenchObserverOptions;
  /** Its spans go to the receiver (its CPU and span count are read per round). */
  readonly traced: boolean;
}

/** A variant's server, client and totals. */
interface Unit {
  readonly variant: ObserveVariant;
  readonly server: ConnectorChild;
  readonly client: RequestConnection;
  readonly call: () => Promise<void>;
  calls: number;
  ms: number;
  serverMs: number;
  receiverMs: number;
  spans: number;
  readonly latencies: number[];
  /** Server CPU per call (us) of each round. */
  readonly perRound: number[];
}

const MESSAGE = { message: 'hello from the observe bench' };
const EXPECTED = `Echo: ${MESSAGE.message}`;
const ROUNDS = QUICK ? 2 : 6;
const THROUGHPUT_CALLS = QUICK ? 2_000 : 10_000;
const LATENCY_CALLS = QUICK ? 300 : 1_000;
const WARMUP_CALLS = QUICK ? 300 : 2_000;
/** Goals against the baseline: CPU per call ratio and p50 delta (ms). */
export const CPU_GOAL = 1.05;
export const P50_GOAL_MS = 0.02;

async function unitOf(variant: ObserveVariant, receiver: OtlpReceiverProcess): Promise<Unit> {
  const observer = variant.observer?.(receiver);
  const server = await startConnector({ upstream: 'inprocess', ...(observer && { observer }) });
  const client = await connectRawHttp(server);
  const call = async () => {
    const result = await client.call(server.tool, MESSAGE);
    if (result?.content?.[0]?.text !== EXPECTED) {
      throw new Error(`observe: unexpected tools/call result ${JSON.stringify(result)}`);
    }
  };
  return {
    variant,
    server,
    client,
    call,
    calls: 0,
    ms: 0,
    serverMs: 0,
    receiverMs: 0,
    spans: 0,
    latencies: [],
    perRound: [],
  };
}

/** One throughput chunk (CPU read between two flushes) and one latency chunk of `u`. */
async function round(u: Unit, receiver: OtlpReceiverProcess, gc: () => void): Promise<void> {
  await u.server.ask('flush');
  gc();
  const spans = u.variant.traced ? await receiver.spans() : 0;
  const before = { server: cpuMs(u.server.pid), receiver: receiver.cpuMs() };
  const chunk = await throughput(u.call, { inFlight: 16, calls: THROUGHPUT_CALLS, maxMs: 60_000 });
  await u.server.ask('flush');
  const server = cpuMs(u.server.pid) - before.server;
  u.serverMs += server;
  if (u.variant.traced) {
    u.receiverMs += receiver.cpuMs() - before.receiver;
    u.spans += (await receiver.spans()) - spans;
  }
  u.calls += chunk.calls;
  u.ms += chunk.ms;
  u.perRound.push((server * 1000) / chunk.calls);
  gc();
  await latencySamples(u.call, u.latencies, { calls: LATENCY_CALLS, maxMs: 60_000 });
}

const p50Of = (u: Unit) => percentile(Float64Array.from(u.latencies).sort(), 50);
const cpuPerCall = (u: Unit) => (u.serverMs * 1000) / u.calls;

/** Rows and targets of the measured units; the first is the baseline. */
function report(units: readonly Unit[]): { rows: Row[]; targets: Target[] } {
  const [base] = units;
  if (!base) return { rows: [], targets: [] };
  const group = 'observe: tools/call, in-process upstream';
  const rows: Row[] = [];
  const targets: Target[] = [];
  const figures = (u: Unit) => ({
    'server CPU/call': { value: cpuPerCall(u), unit: 'us' },
    'calls/s @16': { value: (u.calls / u.ms) * 1000, unit: 'calls/s' },
    'p50 @1': { value: p50Of(u), unit: 'ms' },
  });
  const baseFigures = figures(base);
  for (const u of units) {
    const name = u.variant.name;
    for (const [label, { value, unit }] of Object.entries(figures(u))) {
      const baseline = baseFigures[label as keyof typeof baseFigures];
      rows.push({
        group,
        name: `${label} (${name})`,
        value,
        unit,
        ...(u !== base && {
          baseline: { name: `${label} (${base.variant.name})`, value: baseline.value },
        }),
      });
    }
    if (u === base) continue;
    const p50Delta = p50Of(u) - p50Of(base);
    rows.push(
      {
        group,
        name: `server CPU/call delta (${name})`,
        value: cpuPerCall(u) - cpuPerCall(base),
        unit: 'us',
      },
      { group, name: `p50 @1 delta (${name})`, value: p50Delta, unit: 'ms' },
    );
    if (u.variant.traced) {
      rows.push(
        {
          group,
          name: `OTLP receiver CPU/call (${name})`,
          value: (u.receiverMs * 1000) / u.calls,
          unit: 'us',
        },
        { group, name: `spans received/call (${name})`, value: u.spans / u.calls, unit: 'spans' },
      );
    }
    const ratio = cpuPerCall(u) / cpuPerCall(base);
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
  return { rows, targets };
}

/** Runs part 1 over `variants` (the first is the baseline) with spans sent to `receiver`. */
export async function measureObserveCpu(
  variants: readonly ObserveVariant[],
  receiver: OtlpReceiverProcess,
  gc: () => void,
): Promise<{ rows: Row[]; targets: Target[] }> {
  const units: Unit[] = [];
  try {
    for (const variant of variants) units.push(await unitOf(variant, receiver));
    for (const u of units) {
      await warmUp(u.call, WARMUP_CALLS, 10_000);
      await u.server.ask('flush');
    }
    for (let r = 0; r < ROUNDS; r += 1) {
      const rotated = [...units.slice(r % units.length), ...units.slice(0, r % units.length)];
      for (const u of r % 2 === 0 ? rotated : rotated.reverse()) await round(u, receiver, gc);
    }
    for (const u of units) {
      const spread = u.perRound.map((us) => us.toFixed(1)).join(' / ');
      const { spansDropped } = (await u.server.ask('stats')) as { spansDropped?: number };
      console.error(
        `observe: ${u.variant.name}: server CPU/call per round ${spread} us; p50 ${p50Of(u).toFixed(3)} ms${u.variant.traced ? `; spans dropped ${spansDropped ?? 0}` : ''}`,
      );
    }
    return report(units);
  } finally {
    for (const u of units) {
      await u.client.close();
      await u.server.stop();
    }
  }
}
