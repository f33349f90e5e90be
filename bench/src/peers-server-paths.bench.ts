/**
 * The `connector` server's own paths, each beside the same work done directly: tools/call
 * to an in-process upstream and to a stdio upstream (server-everything) at 1 and 16 in
 * flight, tools/list at 5,000 tools against 1 tool, and list_changed fan-out to 100
 * `subscriptions/listen` listeners (commit to arrival, one monotonic clock across processes).
 */
import type { ToolResult } from './clients/connection.js';
import { connectRawHttp } from './clients/raw-http.js';
import { connectRawStdio } from './clients/raw-stdio.js';
import { fanOut } from './lib/fan-out.js';
import { listTimes } from './lib/list-times.js';
import {
  BUDGET,
  type Call,
  type Chunk,
  callsPerSecond,
  latencySamples,
  QUICK,
  summarize,
  throughput,
  warmUp,
} from './lib/measure-calls.js';
import { EVERYTHING, startConnector } from './lib/targets.js';
import type { BenchContext, BenchResult, Chart, Row } from './types.js';

/** One way to make the call, with what was measured of it. */
interface Unit {
  readonly upstream: string;
  readonly name: string;
  /** The same work done directly: the baseline of the other units of its upstream. */
  readonly direct?: boolean;
  readonly call: Call;
  one: number[];
  sixteen: number[];
  oneChunks: Chunk[];
  sixteenChunks: Chunk[];
}

const MESSAGE = { message: 'hello from the bench' };
const EXPECTED = `Echo: ${MESSAGE.message}`;
const LISTENERS = 100;
const BUMPS = QUICK ? 5 : 40;
const LIST_TOOLS = 5000;

function checked(call: () => Promise<ToolResult>): Call {
  return async () => {
    const result = await call();
    if (result?.content?.[0]?.text !== EXPECTED) {
      throw new Error(`unexpected tools/call result: ${JSON.stringify(result).slice(0, 200)}`);
    }
  };
}

/** The in-process upstream the server's in-process route calls, called here directly. */
const inProcessEcho = async (args: { message: string }): Promise<ToolResult> => ({
  content: [{ type: 'text', text: `Echo: ${args.message}` }],
});

/** Latency and rate at 1 and at 16 in flight for each unit, interleaved in rounds. */
async function measureCalls(units: readonly Unit[], gc: () => void): Promise<void> {
  for (const unit of units) await warmUp(unit.call);
  for (let round = 0; round < BUDGET.rounds; round += 1) {
    for (const unit of units) {
      gc();
      const t0 = performance.now();
      const before = unit.one.length;
      await latencySamples(unit.call, unit.one);
      unit.oneChunks.push({ calls: unit.one.length - before, ms: performance.now() - t0 });
      gc();
      unit.sixteenChunks.push(await throughput(unit.call, { inFlight: 16, samples: unit.sixteen }));
    }
  }
}

function callRows(units: readonly Unit[]): Row[] {
  const rows: Row[] = [];
  for (const unit of units) {
    const one = summarize(unit.one);
    const sixteen = summarize(unit.sixteen);
    const base = units.find((other) => other.upstream === unit.upstream && other.direct);
    const baseOne = base && summarize(base.one);
    const baseSixteen = base && summarize(base.sixteen);
    const b = (value: number | undefined) =>
      unit.direct || !base || value === undefined ? undefined : { name: base.name, value };
    const group = `tools/call, ${unit.upstream} upstream`;
    rows.push(
      { group, name: `${unit.name} p50 @1`, value: one.p50, unit: 'ms', baseline: b(baseOne?.p50) },
      { group, name: `${unit.name} p99 @1`, value: one.p99, unit: 'ms', baseline: b(baseOne?.p99) },
      {
        group,
        name: `${unit.name} p50 @16`,
        value: sixteen.p50,
        unit: 'ms',
        baseline: b(baseSixteen?.p50),
      },
      {
        group,
        name: `${unit.name} p99 @16`,
        value: sixteen.p99,
        unit: 'ms',
        baseline: b(baseSixteen?.p99),
      },
      {
        group,
        name: `${unit.name} calls/s @1`,
        value: callsPerSecond(unit.oneChunks),
        unit: 'calls/s',
        baseline: b(base && callsPerSecond(base.oneChunks)),
      },
      {
        group,
        name: `${unit.name} calls/s @16`,
        value: callsPerSecond(unit.sixteenChunks),
        unit: 'calls/s',
        baseline: b(base && callsPerSecond(base.sixteenChunks)),
      },
    );
  }
  return rows;
}

export default async function serverPathsBench(ctx: BenchContext): Promise<BenchResult> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const local = await startConnector({ upstream: 'inprocess' });
    closers.push(() => local.stop());
    const stdioServer = await startConnector({ upstream: 'everything' });
    closers.push(() => stdioServer.stop());
    const big = await startConnector({ upstream: 'inprocess', tools: LIST_TOOLS - 1 });
    closers.push(() => big.stop());
    const localClient = await connectRawHttp(local);
    closers.push(() => localClient.close());
    const stdioClient = await connectRawHttp(stdioServer);
    closers.push(() => stdioClient.close());
    const stdioDirect = await connectRawStdio(process.execPath, [EVERYTHING, 'stdio']);
    closers.push(() => stdioDirect.close());
    const bigClient = await connectRawHttp(big);
    closers.push(() => bigClient.close());

    const fresh = () => ({ one: [], sixteen: [], oneChunks: [], sixteenChunks: [] });
    const units: Unit[] = [
      {
        upstream: 'in-process',
        direct: true,
        name: 'direct call',
        call: checked(() => inProcessEcho(MESSAGE)),
        ...fresh(),
      },
      {
        upstream: 'in-process',
        name: 'via connector',
        call: checked(() => localClient.call(local.tool, MESSAGE)),
        ...fresh(),
      },
      {
        upstream: 'stdio',
        direct: true,
        name: 'direct stdio',
        call: checked(() => stdioDirect.call('echo', MESSAGE)),
        ...fresh(),
      },
      {
        upstream: 'stdio',
        name: 'via connector',
        call: checked(() => stdioClient.call(stdioServer.tool, MESSAGE)),
        ...fresh(),
      },
    ];
    await measureCalls(units, ctx.gc);
    const rows = callRows(units);

    const small = await listTimes(localClient, 1);
    const large = await listTimes(bigClient, LIST_TOOLS);
    const listGroup = 'tools/list via connector (raw http, 500 per page)';
    rows.push(
      { group: listGroup, name: '1 tool p50', value: small.all.p50, unit: 'ms' },
      {
        group: listGroup,
        name: `${LIST_TOOLS} tools, all pages p50`,
        value: large.all.p50,
        unit: 'ms',
        baseline: { name: '1 tool', value: small.all.p50 },
      },
      {
        group: listGroup,
        name: `${LIST_TOOLS} tools, all pages p99`,
        value: large.all.p99,
        unit: 'ms',
        baseline: { name: '1 tool', value: small.all.p99 },
      },
      {
        group: listGroup,
        name: `${LIST_TOOLS} tools, first page p50`,
        value: large.first.p50,
        unit: 'ms',
        baseline: { name: '1 tool', value: small.first.p50 },
      },
      {
        group: listGroup,
        name: `${LIST_TOOLS} tools, first page p99`,
        value: large.first.p99,
        unit: 'ms',
        baseline: { name: '1 tool', value: small.first.p99 },
      },
    );

    const fan = await fanOut(local, { count: LISTENERS, bumps: BUMPS });
    const fanGroup = `list_changed to ${LISTENERS} listeners (commit to arrival, ${fan.n} deliveries)`;
    rows.push(
      { group: fanGroup, name: 'p50', value: fan.p50, unit: 'ms' },
      { group: fanGroup, name: 'p99', value: fan.p99, unit: 'ms' },
      { group: fanGroup, name: 'max', value: fan.max, unit: 'ms' },
    );
    const percentiles = (unit: Unit, key: 'one' | 'sixteen') => {
      const s = summarize(unit[key]);
      return { p50: s.p50, p90: s.p90, p99: s.p99, 'p99.9': s['p99.9'] };
    };
    const charts: Chart[] = [
      {
        id: 'server-paths-latency',
        title: 'tools/call latency through the connector server and direct (raw clients)',
        unit: 'ms',
        series: units.flatMap((unit) => [
          { name: `${unit.upstream} ${unit.name} @1`, values: percentiles(unit, 'one') },
          { name: `${unit.upstream} ${unit.name} @16`, values: percentiles(unit, 'sixteen') },
        ]),
      },
    ];
    return { rows, charts };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}
