/**
 * The `connector` server against peer aggregators, all fronting the same stdio upstream
 * (server-everything, tool `echo`) and driven by the same clients: the lean raw-HTTP
 * client, SDK v1 and SDK v2 (MCP 2025, and 2026-07-28 where the server speaks it). Floors
 * from the same run: a bare `node:http` JSON-RPC server and the direct stdio call; their
 * sum is the limit. The lean proxy (bare node:http forwarding to the same stdio upstream,
 * no SDK) shows what the three-process hop costs by itself. Reports p50/p99 at 1 in flight, calls/s at 16, and the targets.
 * Measuring is interleaved in rounds so that load drifting on the machine hits all alike.
 */
import type { Connection, Endpoint } from './clients/connection.js';
import { connectRawHttp } from './clients/raw-http.js';
import { connectRawStdio } from './clients/raw-stdio.js';
import { connectSdkV1Http } from './clients/sdk-v1.js';
import { connectSdkV2Http, connectSdkV2Stdio } from './clients/sdk-v2.js';
import {
  BUDGET,
  type Call,
  type Chunk,
  callsPerSecond,
  latencySamples,
  summarize,
  throughput,
  warmUp,
} from './lib/measure-calls.js';
import { type PeerResult, peerRows } from './lib/peer-report.js';
import {
  EVERYTHING,
  startConnector,
  startHttpFloor,
  startLeanProxy,
  startMcpProxy,
  startSupergateway,
  type BenchServer,
} from './lib/targets.js';
import type { BenchContext, BenchResult } from './types.js';

/** One client against one server, with what was measured so far. */
interface Unit {
  readonly client: string;
  readonly target: string;
  readonly call: Call;
  readonly samples: number[];
  readonly chunks: Chunk[];
}

/** An HTTP client of the comparison. */
interface HttpClient {
  readonly name: string;
  connect(target: Endpoint): Promise<Connection>;
  readonly only?: ReadonlySet<string>;
}

/** The HTTP clients; `only` limits one to the servers that speak its protocol. */
const CLIENTS: HttpClient[] = [
  { name: 'raw http', connect: connectRawHttp },
  { name: 'sdk v1', connect: connectSdkV1Http },
  { name: 'sdk v2', connect: connectSdkV2Http },
  {
    name: 'sdk v2 2026-07-28',
    connect: (target: Endpoint) => connectSdkV2Http(target, { modern: true }),
    only: new Set(['connector', 'mcp-proxy']),
  },
];

const MESSAGE = { message: 'hello from the bench' };
const EXPECTED = `Echo: ${MESSAGE.message}`;

/** A call that fails loudly unless the upstream's echo came back. */
function echoCall(connection: Connection, tool: string): Call {
  return async () => {
    const result = await connection.call(tool, MESSAGE);
    if (result?.content?.[0]?.text !== EXPECTED) {
      throw new Error(`unexpected tools/call result: ${JSON.stringify(result).slice(0, 200)}`);
    }
  };
}

/** Measures every unit in rounds, rotating the order each round. */
async function measureUnits(units: readonly Unit[], gc: () => void): Promise<PeerResult[]> {
  for (const unit of units) await warmUp(unit.call);
  for (let round = 0; round < BUDGET.rounds; round += 1) {
    const shift = round % units.length;
    for (const unit of [...units.slice(shift), ...units.slice(0, shift)]) {
      gc();
      await latencySamples(unit.call, unit.samples);
      gc();
      unit.chunks.push(await throughput(unit.call, { inFlight: 16 }));
    }
  }
  return units.map((unit) => ({
    client: unit.client,
    target: unit.target,
    latency: summarize(unit.samples),
    callsPerSec: callsPerSecond(unit.chunks),
  }));
}

export default async function peersBench(ctx: BenchContext): Promise<BenchResult> {
  const servers: BenchServer[] = [];
  const connections: Connection[] = [];
  try {
    for (const start of [
      startHttpFloor,
      startLeanProxy,
      startConnector,
      startMcpProxy,
      startSupergateway,
    ]) {
      servers.push(await start());
    }
    const units: Unit[] = [];
    const unit = (client: string, target: string, connection: Connection, tool: string) => {
      connections.push(connection);
      units.push({ client, target, call: echoCall(connection, tool), samples: [], chunks: [] });
    };
    unit(
      'raw stdio',
      'stdio direct',
      await connectRawStdio(process.execPath, [EVERYTHING, 'stdio']),
      'echo',
    );
    unit(
      'sdk v2',
      'stdio direct',
      await connectSdkV2Stdio(process.execPath, [EVERYTHING, 'stdio']),
      'echo',
    );
    for (const client of CLIENTS) {
      for (const server of servers) {
        if (client.only && !client.only.has(server.name)) continue;
        unit(client.name, server.name, await client.connect(server), server.tool);
      }
    }
    const results = await measureUnits(units, ctx.gc);
    return peerRows(
      results,
      CLIENTS.map((client) => client.name),
    );
  } finally {
    for (const connection of connections) await connection.close().catch(() => undefined);
    for (const server of servers) await server.stop();
  }
}
