/**
 * Part 1 of the `observe` bench: what the daemon's call recorder costs on `tools/call`.
 * One `connector` server child per variant (lib/observe-cpu-report.ts), all over the
 * in-process echo upstream, measured in rounds. Each round starts a fresh process per
 * variant (so no variant keeps one process's luck: its JIT, heap sizing or placement for
 * the whole run), warms each up, then measures them one after the other in an order that
 * rotates and flips each round, so load drifting on the machine hits every variant alike:
 * server CPU per call at 16 in flight (`/proc`; the audit writer's and the exporter's work
 * included, as the server is asked to flush both before each reading), calls/s at 16 in
 * flight, and p50 of sequential calls.
 */
import { join } from 'node:path';
import type { RequestConnection } from '../clients/connection.js';
import { connectRawHttp } from '../clients/raw-http.js';
import type { BenchObserverStats } from './bench-observer.js';
import { cpuMs } from './daemon-process.js';
import { latencySamples, QUICK, throughput } from './measure-calls.js';
import {
  type ObserveCpuReport,
  type ObserveVariant,
  p50Of,
  reportObserveCpu,
  type VariantFigures,
} from './observe-cpu-report.js';
import type { OtlpReceiverProcess } from './otlp-receiver-process.js';
import { type ConnectorChild, startConnector } from './targets.js';

/** What was measured of one variant so far, over every round's process. */
interface Tally extends VariantFigures {
  answered: number;
  calls: number;
  ms: number;
  serverMs: number;
  receiverMs: number;
  spans: number;
  readonly latencies: number[];
  readonly perRound: number[];
  stats: { spansDropped: number; auditWritten: number; auditDropped: number };
}

/** One round's server of a variant, and its client. */
interface Running {
  readonly tally: Tally;
  readonly server: ConnectorChild;
  readonly client: RequestConnection;
  readonly call: () => Promise<void>;
}

const MESSAGE = { message: 'hello from the observe bench' };
const EXPECTED = `Echo: ${MESSAGE.message}`;
const ROUNDS = QUICK ? 2 : 6;
const THROUGHPUT_CALLS = QUICK ? 2_000 : 8_000;
const LATENCY_CALLS = QUICK ? 300 : 1_000;
/**
 * Calls at 16 in flight that warm a fresh server up before it is measured: its CPU per
 * call settles after 4,000-6,000 (480, 165, 110, 105, 100, 75 us per 2,000 here).
 */
const WARMUP_CALLS = QUICK ? 3_000 : 6_000;

function tallyOf(variant: ObserveVariant): Tally {
  return {
    variant,
    answered: 0,
    calls: 0,
    ms: 0,
    serverMs: 0,
    receiverMs: 0,
    spans: 0,
    latencies: [],
    perRound: [],
    stats: { spansDropped: 0, auditWritten: 0, auditDropped: 0 },
  };
}

/** Starts a server for `tally`'s variant (its audit folder: `dir`) and connects a client. */
async function start(tally: Tally, receiver: OtlpReceiverProcess, dir: string): Promise<Running> {
  const observer = tally.variant.observer?.({ tracesUrl: receiver.tracesUrl, dir });
  const server = await startConnector({ upstream: 'inprocess', ...(observer && { observer }) });
  const client = await connectRawHttp(server);
  const call = async () => {
    const result = await client.call(server.tool, MESSAGE);
    if (result?.content?.[0]?.text !== EXPECTED) {
      throw new Error(`observe: unexpected tools/call result ${JSON.stringify(result)}`);
    }
    tally.answered += 1;
  };
  return { tally, server, client, call };
}

/** One throughput chunk (CPU read between two flushes) and one latency chunk. */
async function measure(run: Running, receiver: OtlpReceiverProcess, gc: () => void) {
  const { tally, server } = run;
  await server.ask('flush');
  gc();
  const spans = tally.variant.traced ? await receiver.spans() : 0;
  const before = { server: cpuMs(server.pid), receiver: receiver.cpuMs() };
  const chunk = await throughput(run.call, {
    inFlight: 16,
    calls: THROUGHPUT_CALLS,
    maxMs: 60_000,
  });
  await server.ask('flush');
  const serverMs = cpuMs(server.pid) - before.server;
  tally.serverMs += serverMs;
  if (tally.variant.traced) {
    tally.receiverMs += receiver.cpuMs() - before.receiver;
    tally.spans += (await receiver.spans()) - spans;
  }
  tally.calls += chunk.calls;
  tally.ms += chunk.ms;
  tally.perRound.push((serverMs * 1000) / chunk.calls);
  gc();
  await latencySamples(run.call, tally.latencies, { calls: LATENCY_CALLS, maxMs: 60_000 });
}

/** Adds what the observer of `run` counted (all flushed) to its tally, then stops its server. */
async function stop(run: Running): Promise<void> {
  try {
    if (run.tally.variant.observer) {
      await run.server.ask('flush');
      const stats = await run.server.ask<BenchObserverStats>('stats');
      run.tally.stats.spansDropped += stats.spansDropped;
      run.tally.stats.auditWritten += stats.auditWritten;
      run.tally.stats.auditDropped += stats.auditDropped;
    }
  } finally {
    await run.client.close();
    await run.server.stop();
  }
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
  const tallies = variants.map(tallyOf);
  for (let r = 0; r < ROUNDS; r += 1) {
    const started = await Promise.allSettled(
      tallies.map((tally, index) => start(tally, receiver, join(dir, `variant-${index}`))),
    );
    const runs = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    let stopped: PromiseSettledResult<void>[] = [];
    try {
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      for (const run of runs) {
        await throughput(run.call, { inFlight: 16, calls: WARMUP_CALLS, maxMs: 60_000 });
      }
      const rotated = [...runs.slice(r % runs.length), ...runs.slice(0, r % runs.length)];
      for (const run of r % 2 === 0 ? rotated : rotated.reverse()) {
        await measure(run, receiver, gc);
      }
    } finally {
      stopped = await Promise.allSettled(runs.map(stop));
    }
    const failed = stopped.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  }
  for (const t of tallies) {
    const spread = t.perRound.map((us) => us.toFixed(1)).join(' / ');
    console.error(
      `observe: ${t.variant.name}: server CPU/call per round ${spread} us; p50 ${p50Of(t).toFixed(3)} ms; observer ${JSON.stringify(t.stats)}`,
    );
  }
  return reportObserveCpu(tallies);
}
