/**
 * `tools/call` CPU per call and p50 of the `connector` server, this build beside another
 * one (A/B): `BENCH_AB_CORE_DIST=<dir>` names the other build's `core/dist` (e.g. main,
 * built in a scratch clone). Both servers run at once, each over its own
 * server-everything stdio upstream and over an in-process echo, and are measured in
 * interleaved rounds (the order flips each round), so load drifting on the machine hits
 * both alike. CPU per call is read from `/proc/<pid>/stat` of the server and of its
 * upstream, and from `process.cpuUsage()` of this (client) process, at 16 in flight; it
 * holds up on a busy machine where latency does not (docs/benchmarks.md). p50 is of
 * sequential calls, from all rounds. Without BENCH_AB_CORE_DIST only this build runs.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RequestConnection } from './clients/connection.js';
import { connectRawHttp } from './clients/raw-http.js';
import { descendants } from './lib/daemon-process.js';
import {
  type Call,
  latencySamples,
  percentile,
  QUICK,
  throughput,
  warmUp,
} from './lib/measure-calls.js';
import { type ConnectorChild, startConnector } from './lib/targets.js';
import type { BenchContext, Row } from './types.js';

/** One build of the server over one upstream, with its totals. */
interface Unit {
  readonly build: string;
  readonly upstream: 'everything' | 'inprocess';
  readonly server: ConnectorChild;
  readonly client: RequestConnection;
  readonly call: Call;
  readonly upstreamPid: number | undefined;
  calls: number;
  ms: number;
  serverMs: number;
  upstreamMs: number;
  clientMs: number;
  readonly latencies: number[];
  readonly perRound: number[];
}

const MESSAGE = { message: 'hello from the bench' };
const EXPECTED = `Echo: ${MESSAGE.message}`;
const ROUNDS = QUICK ? 2 : 6;
const THROUGHPUT_CALLS = QUICK ? 3_000 : 15_000;
const LATENCY_CALLS = QUICK ? 300 : 1_500;
/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ). */
const TICKS = 100;

/** CPU ms (user + system) of `pid` so far. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

function clientCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function unit(
  build: string,
  coreDist: string | undefined,
  upstream: Unit['upstream'],
): Promise<Unit> {
  const server = await startConnector({ upstream, coreDist });
  const client = await connectRawHttp(server);
  const call = async () => {
    const result = await client.call(server.tool, MESSAGE);
    if (result?.content?.[0]?.text !== EXPECTED) {
      throw new Error(`unexpected tools/call result: ${JSON.stringify(result).slice(0, 200)}`);
    }
  };
  const upstreamPid = upstream === 'everything' ? descendants(server.pid)[0] : undefined;
  return {
    build,
    upstream,
    server,
    client,
    call,
    upstreamPid,
    calls: 0,
    ms: 0,
    serverMs: 0,
    upstreamMs: 0,
    clientMs: 0,
    latencies: [],
    perRound: [],
  };
}

/** One throughput chunk and one latency chunk of `u`, added to its totals. */
async function round(u: Unit, gc: () => void): Promise<void> {
  gc();
  const before = {
    server: cpuMs(u.server.pid),
    upstream: u.upstreamPid ? cpuMs(u.upstreamPid) : 0,
    client: clientCpuMs(),
  };
  const chunk = await throughput(u.call, {
    inFlight: 16,
    calls: THROUGHPUT_CALLS,
    maxMs: 60_000,
  });
  const server = cpuMs(u.server.pid) - before.server;
  u.serverMs += server;
  u.upstreamMs += u.upstreamPid ? cpuMs(u.upstreamPid) - before.upstream : 0;
  u.clientMs += clientCpuMs() - before.client;
  u.calls += chunk.calls;
  u.ms += chunk.ms;
  u.perRound.push((server * 1000) / chunk.calls);
  gc();
  await latencySamples(u.call, u.latencies, { calls: LATENCY_CALLS, maxMs: 60_000 });
}

function rows(units: readonly Unit[]): Row[] {
  const out: Row[] = [];
  for (const u of units) {
    const other = units.find((o) => o.upstream === u.upstream && o.build !== u.build);
    const group = `tools/call A/B, ${u.upstream === 'everything' ? 'stdio' : 'in-process'} upstream`;
    const figures = (x: Unit): Record<string, { value: number; unit: string }> => ({
      'server CPU/call': { value: (x.serverMs * 1000) / x.calls, unit: 'us' },
      ...(x.upstreamPid && {
        'upstream CPU/call': { value: (x.upstreamMs * 1000) / x.calls, unit: 'us' },
      }),
      'client CPU/call': { value: (x.clientMs * 1000) / x.calls, unit: 'us' },
      'calls/s @16': { value: (x.calls / x.ms) * 1000, unit: 'calls/s' },
      'p50 @1': {
        value: percentile(Float64Array.from(x.latencies).sort(), 50),
        unit: 'ms',
      },
    });
    const mine = figures(u);
    const theirs = other && figures(other);
    for (const [name, { value, unit }] of Object.entries(mine)) {
      out.push({
        group,
        name: `${name} (${u.build})`,
        value,
        unit,
        ...(theirs &&
          u.build === 'this build' && {
            baseline: {
              name: `${name} (${other.build})`,
              value: theirs[name]?.value ?? Number.NaN,
            },
          }),
      });
    }
  }
  return out;
}

/** The call-cpu bench. */
export default async function callCpuBench(ctx: BenchContext): Promise<Row[]> {
  const other = process.env.BENCH_AB_CORE_DIST;
  const builds: [string, string | undefined][] = [['this build', undefined]];
  if (other) builds.push([`other build (${other})`, resolve(other)]);
  const units: Unit[] = [];
  try {
    for (const upstream of ['everything', 'inprocess'] as const) {
      for (const [build, dist] of builds) units.push(await unit(build, dist, upstream));
    }
    for (const u of units) await warmUp(u.call);
    for (let r = 0; r < ROUNDS; r += 1) {
      const order = r % 2 === 0 ? units : [...units].reverse();
      for (const u of order) await round(u, ctx.gc);
    }
    for (const u of units) {
      const spread = u.perRound.map((us) => us.toFixed(1)).join(' / ');
      console.error(`call-cpu: ${u.build}, ${u.upstream}: server CPU/call per round ${spread} us`);
    }
    return rows(units);
  } finally {
    for (const u of units) {
      await u.client.close();
      await u.server.stop();
    }
  }
}
