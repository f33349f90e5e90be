/**
 * Part 1 of the `observe` bench: what the daemon's call recorder costs on `tools/call`.
 * One `connector` server child per variant (lib/observe-cpu-report.ts), all over the
 * in-process echo upstream, measured in interleaved rounds (the order rotates and flips
 * each round, so load drifting on the machine hits every variant alike): server CPU per
 * call at 16 in flight (`/proc`; the audit writer's and the exporter's work included, as
 * the server is asked to flush both before each reading), calls/s at 16 in flight, and p50
 * of sequential calls.
 */
import { join } from 'node:path';
import type { RequestConnection } from '../clients/connection.js';
import { connectRawHttp } from '../clients/raw-http.js';
import type { BenchObserverStats } from './bench-observer.js';
import { cpuMs } from './daemon-process.js';
import { latencySamples, QUICK, throughput, warmUp } from './measure-calls.js';
import {
  type ObserveCpuReport,
  type ObserveVariant,
  p50Of,
  reportObserveCpu,
  type VariantFigures,
} from './observe-cpu-report.js';
import type { OtlpReceiverProcess } from './otlp-receiver-process.js';
import { type ConnectorChild, startConnector } from './targets.js';

/** A variant's server, client and what was measured so far. */
interface Unit extends VariantFigures {
  readonly server: ConnectorChild;
  readonly client: RequestConnection;
  readonly call: () => Promise<void>;
  answered: number;
  calls: number;
  ms: number;
  serverMs: number;
  receiverMs: number;
  spans: number;
  readonly latencies: number[];
  readonly perRound: number[];
  stats?: BenchObserverStats;
}

const MESSAGE = { message: 'hello from the observe bench' };
const EXPECTED = `Echo: ${MESSAGE.message}`;
const ROUNDS = QUICK ? 2 : 8;
const THROUGHPUT_CALLS = QUICK ? 2_000 : 10_000;
const LATENCY_CALLS = QUICK ? 300 : 1_000;
const WARMUP_CALLS = QUICK ? 1_000 : 2_000;

async function unitOf(
  variant: ObserveVariant,
  receiver: OtlpReceiverProcess,
  dir: string,
): Promise<Unit> {
  const observer = variant.observer?.({ tracesUrl: receiver.tracesUrl, dir });
  const server = await startConnector({ upstream: 'inprocess', ...(observer && { observer }) });
  const client = await connectRawHttp(server);
  const call = async () => {
    const result = await client.call(server.tool, MESSAGE);
    if (result?.content?.[0]?.text !== EXPECTED) {
      throw new Error(`observe: unexpected tools/call result ${JSON.stringify(result)}`);
    }
    unit.answered += 1;
  };
  const unit: Unit = {
    variant,
    server,
    client,
    call,
    answered: 0,
    calls: 0,
    ms: 0,
    serverMs: 0,
    receiverMs: 0,
    spans: 0,
    latencies: [],
    perRound: [],
  };
  return unit;
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

/**
 * Runs part 1 over `variants` (the first is the baseline), spans sent to `receiver`, audit
 * folders made under `dir`.
 */
export async function measureObserveCpu(
  variants: readonly ObserveVariant[],
  receiver: OtlpReceiverProcess,
  dir: string,
  gc: () => void,
): Promise<ObserveCpuReport> {
  const units: Unit[] = [];
  try {
    for (const [index, variant] of variants.entries()) {
      units.push(await unitOf(variant, receiver, join(dir, `variant-${index}`)));
    }
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
      const stats = await u.server.ask<BenchObserverStats>('stats');
      if (u.variant.observer) u.stats = stats;
      console.error(
        `observe: ${u.variant.name}: server CPU/call per round ${spread} us; p50 ${p50Of(u).toFixed(3)} ms; observer ${JSON.stringify(stats)}`,
      );
    }
    return reportObserveCpu(units);
  } finally {
    for (const u of units) {
      await u.client.close();
      await u.server.stop();
    }
  }
}
