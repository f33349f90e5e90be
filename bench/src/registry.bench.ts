/**
 * ConnectorMCPRegistry: commit time for 100 connectors x 50 tools, and `tools/list` serve
 * time from the prepared JSON against a naive serializer (JSON.stringify of the tool
 * objects per request), for 5,000 and 50 tools. Every serve path ends in a UTF-8 Buffer,
 * as a socket write does, so none profits from V8's lazy string concatenation.
 */
import { type ConnectorMCPRegistry, createConnectorMCPRegistry } from '@tutti/core/internal';
import { manyTools, type ToolSet } from './lib/tool-sets.js';
import type { BenchContext, Row } from './types.js';

const client = { callTool: async () => ({ content: [] as unknown[] }) };

/** `connectors` tool sets of `toolsEach` realistic tools. */
function toolSets(connectors: number, toolsEach: number): ToolSet[] {
  return manyTools(connectors * toolsEach, toolsEach);
}

function loaded(sets: readonly ToolSet[]): ConnectorMCPRegistry {
  const registry = createConnectorMCPRegistry();
  for (const { key, tools } of sets) registry.commit(key, 1, client, tools);
  return registry;
}

/** What the server does per request: wrap the prepared JSON in a JSON-RPC response. */
function servePrepared(registry: ConnectorMCPRegistry, id: number): Buffer {
  const body = `{"jsonrpc":"2.0","id":${id},"result":{"tools":${registry.snapshot().toolsJson}}}`;
  return Buffer.from(body, 'utf8');
}

const HEAD = (id: number) => Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"tools":`, 'utf8');
const TAIL = Buffer.from('}}', 'utf8');

/** The same response from the snapshot's prepared UTF-8 bytes: no string is encoded. */
function servePreparedBytes(registry: ConnectorMCPRegistry, id: number): Buffer {
  return Buffer.concat([HEAD(id), registry.snapshot().toolsJsonBytes, TAIL]);
}

/** The baseline: serialize the tool objects again on every request. */
function serveNaive(registry: ConnectorMCPRegistry, id: number): Buffer {
  const body = JSON.stringify({ jsonrpc: '2.0', id, result: { tools: registry.snapshot().tools } });
  return Buffer.from(body, 'utf8');
}

export default async function registryBench(ctx: BenchContext): Promise<Row[]> {
  const big = toolSets(100, 50);
  const rows: Row[] = [];

  const commitAll = await ctx.measure(() => loaded(big), { warmup: 2, samples: 7, minMs: 500 });
  rows.push({
    group: 'commit',
    name: 'commit 100 connectors x 50 tools',
    value: commitAll,
    unit: 'ms',
  });
  rows.push({
    group: 'commit',
    name: 'per connector (50 tools)',
    value: commitAll / 100,
    unit: 'ms',
  });

  const registry5000 = loaded(big);
  const t0 = performance.now();
  const bytes5000 = registry5000.snapshot().toolsJsonBytes.length;
  rows.push({
    group: 'commit',
    name: 'prepare snapshot JSON + bytes after a change (5,000 tools, once)',
    value: performance.now() - t0,
    unit: 'ms',
  });

  const registry50 = loaded(toolSets(1, 50));
  const bytes50 = registry50.snapshot().toolsJsonBytes.length;
  let id = 0;
  const sizes: [string, ConnectorMCPRegistry, number][] = [
    ['5,000 tools', registry5000, bytes5000],
    ['50 tools', registry50, bytes50],
  ];
  for (const [label, registry, bytes] of sizes) {
    const batch = bytes > 100_000 ? 1 : 50;
    const prepared = await ctx.measure(() => servePrepared(registry, ++id), { batch });
    const preparedBytes = await ctx.measure(() => servePreparedBytes(registry, ++id), { batch });
    const naive = await ctx.measure(() => serveNaive(registry, ++id), { batch });
    const group = `tools/list serve (${label}, ${Math.round(bytes / 1024)} KiB)`;
    rows.push({ group, name: 'naive JSON.stringify per request', value: naive * 1000, unit: 'us' });
    rows.push({
      group,
      name: 'prepared JSON string wrapped, then UTF-8 encoded',
      value: prepared * 1000,
      unit: 'us',
      baseline: { name: 'naive', value: naive * 1000 },
    });
    rows.push({
      group,
      name: 'prepared UTF-8 bytes wrapped (toolsJsonBytes)',
      value: preparedBytes * 1000,
      unit: 'us',
      baseline: { name: 'naive', value: naive * 1000 },
    });
    rows.push({
      group,
      name: 'prepared UTF-8 bytes throughput',
      value: bytes / 1024 / 1024 / (preparedBytes / 1000),
      unit: 'MiB/s',
    });
  }

  const page = await ctx.measure(
    () => {
      const snapshot = registry5000.snapshot();
      const first = snapshot.page(undefined, 100);
      return snapshot.page(first.nextCursor, 100);
    },
    { batch: 100 },
  );
  rows.push({
    group: 'tools/list page',
    name: 'page of 100 by cursor (of 5,000)',
    value: page * 1000,
    unit: 'us',
  });
  return rows;
}
