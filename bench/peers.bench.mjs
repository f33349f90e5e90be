/**
 * The `connector` server against peer aggregators, all fronting the same stdio upstream
 * (server-everything, tool `echo`) and driven by the same clients: the lean raw-HTTP
 * client, SDK v1 and SDK v2 (MCP 2025, and 2026-07-28 where the server speaks it). Floors
 * from the same run: a bare `node:http` JSON-RPC server and the direct stdio call; their
 * sum is the limit. The lean proxy (bare node:http forwarding to the same stdio upstream,
 * no SDK) shows what the three-process hop costs by itself. Reports p50/p99 at 1 in flight, calls/s at 16, and the targets.
 * Measuring is interleaved in rounds so that load drifting on the machine hits all alike.
 */
import { connectRawHttp } from './clients/raw-http.mjs';
import { connectRawStdio } from './clients/raw-stdio.mjs';
import { connectSdkV1Http } from './clients/sdk-v1.mjs';
import { connectSdkV2Http, connectSdkV2Stdio } from './clients/sdk-v2.mjs';
import {
  BUDGET,
  callsPerSecond,
  latencySamples,
  summarize,
  throughput,
  warmUp,
} from './lib/measure-calls.mjs';
import { peerRows } from './lib/peer-report.mjs';
import {
  EVERYTHING,
  startConnector,
  startHttpFloor,
  startLeanProxy,
  startMcpProxy,
  startSupergateway,
} from './lib/targets.mjs';

/** The HTTP clients; `only` limits one to the servers that speak its protocol. */
const CLIENTS = [
  { name: 'raw http', connect: connectRawHttp },
  { name: 'sdk v1', connect: connectSdkV1Http },
  { name: 'sdk v2', connect: connectSdkV2Http },
  {
    name: 'sdk v2 2026-07-28',
    connect: (target) => connectSdkV2Http(target, { modern: true }),
    only: new Set(['connector', 'mcp-proxy']),
  },
];

const MESSAGE = { message: 'hello from the bench' };
const EXPECTED = `Echo: ${MESSAGE.message}`;

/** A call that fails loudly unless the upstream's echo came back. */
function echoCall(connection, tool) {
  return async () => {
    const result = await connection.call(tool, MESSAGE);
    if (result?.content?.[0]?.text !== EXPECTED) {
      throw new Error(`unexpected tools/call result: ${JSON.stringify(result).slice(0, 200)}`);
    }
  };
}

/** Measures every unit in rounds, rotating the order each round. */
async function measureUnits(units, gc) {
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

export default async function peersBench(ctx) {
  const servers = [];
  const connections = [];
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
    const units = [];
    const unit = (client, target, connection, tool) => {
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
