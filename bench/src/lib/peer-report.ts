/**
 * Turns the peer bench's measurements into report rows, target checks and latency charts.
 * Limit (per HTTP client): the HTTP floor with that client plus the direct stdio call with
 * the lean stdio client; latencies add, and calls/s combine as 1 / (1/a + 1/b) (the time of
 * one call is the sum of both legs' times).
 */

import type { Chart, Row, Target } from '../types.js';
import type { Summary } from './measure-calls.js';

/** The measurements of one client against one server. */
export interface PeerResult {
  readonly client: string;
  readonly target: string;
  readonly latency: Summary;
  readonly callsPerSec: number;
}

/** The limit a server could reach with one client: floor plus stdio direct. */
interface Limit {
  readonly p50: number;
  readonly p99: number;
  readonly callsPerSec: number;
}

const PEERS = ['mcp-proxy', 'supergateway'];
const PERCENTILES = ['p50', 'p90', 'p99', 'p99.9'] as const;

function find(
  results: readonly PeerResult[],
  client: string,
  target: string,
): PeerResult | undefined {
  return results.find((result) => result.client === client && result.target === target);
}

function limitOf(floor: PeerResult | undefined, stdio: PeerResult | undefined): Limit | undefined {
  if (!floor || !stdio) return undefined;
  return {
    p50: floor.latency.p50 + stdio.latency.p50,
    p99: floor.latency.p99 + stdio.latency.p99,
    callsPerSec: 1 / (1 / floor.callsPerSec + 1 / stdio.callsPerSec),
  };
}

function stdioRows(results: readonly PeerResult[]): Row[] {
  const rows: Row[] = [];
  for (const client of ['raw stdio', 'sdk v2']) {
    const direct = find(results, client, 'stdio direct');
    if (!direct) continue;
    const name = `stdio direct (${client} client)`;
    rows.push(
      { group: 'stdio direct p50 @1', name, value: direct.latency.p50, unit: 'ms' },
      { group: 'stdio direct p99 @1', name, value: direct.latency.p99, unit: 'ms' },
      { group: 'stdio direct calls/s @16', name, value: direct.callsPerSec, unit: 'calls/s' },
    );
  }
  return rows;
}

function clientRows(
  results: readonly PeerResult[],
  client: string,
  limit: Limit | undefined,
): Row[] {
  const rows: Row[] = [];
  const servers = ['http floor', 'lean proxy', 'connector', ...PEERS];
  const metrics: [string, string, (r: PeerResult) => number, number | undefined][] = [
    ['p50 @1', 'ms', (r) => r.latency.p50, limit?.p50],
    ['p99 @1', 'ms', (r) => r.latency.p99, limit?.p99],
    ['calls/s @16', 'calls/s', (r) => r.callsPerSec, limit?.callsPerSec],
  ];
  for (const [metric, unit, value, limitValue] of metrics) {
    const group = `tools/call ${metric}, ${client}`;
    const baseline = limitValue === undefined ? undefined : { name: 'limit', value: limitValue };
    if (baseline)
      rows.push({ group, name: 'limit (http floor + stdio direct)', value: baseline.value, unit });
    for (const server of servers) {
      const result = find(results, client, server);
      if (!result) continue;
      rows.push({
        group,
        name: server,
        value: value(result),
        unit,
        baseline: server === 'http floor' ? undefined : baseline,
      });
    }
  }
  return rows;
}

function targetsOf(
  results: readonly PeerResult[],
  client: string,
  limit: Limit | undefined,
): Target[] {
  const connector = find(results, client, 'connector');
  const peers = PEERS.map((peer) => find(results, client, peer)).filter(
    (peer): peer is PeerResult => peer !== undefined,
  );
  if (!connector || peers.length === 0) return [];
  const bestP50 = Math.min(...peers.map((peer) => peer.latency.p50));
  const bestRate = Math.max(...peers.map((peer) => peer.callsPerSec));
  const targets: Target[] = [
    {
      client,
      target: 'p50 / best peer p50',
      measured: connector.latency.p50 / bestP50,
      unit: 'x',
      goal: '<= 0.6x',
      met: connector.latency.p50 <= 0.6 * bestP50,
    },
    {
      client,
      target: 'calls/s / best peer calls/s',
      measured: connector.callsPerSec / bestRate,
      unit: 'x',
      goal: '>= 1.3x',
      met: connector.callsPerSec >= 1.3 * bestRate,
    },
  ];
  if (limit) {
    targets.unshift({
      client,
      target: 'p50 - limit p50',
      measured: connector.latency.p50 - limit.p50,
      unit: 'ms',
      goal: '<= 0.3 ms',
      met: connector.latency.p50 - limit.p50 <= 0.3,
    });
    targets.push({
      client,
      target: 'calls/s / limit calls/s',
      measured: connector.callsPerSec / limit.callsPerSec,
      unit: 'x',
      goal: '>= 0.8x',
      met: connector.callsPerSec >= 0.8 * limit.callsPerSec,
    });
  }
  return targets;
}

function chartOf(results: readonly PeerResult[], client: string): Chart {
  const series = results
    .filter(
      (result) =>
        result.client === client || (result.client === 'raw stdio' && client === 'raw http'),
    )
    .map((result) => ({
      name: result.target === 'stdio direct' ? `stdio direct (${result.client})` : result.target,
      values: Object.fromEntries(PERCENTILES.map((p) => [p, result.latency[p]])),
    }));
  return {
    id: `peers-latency-${client.replace(/[^a-z0-9]+/gi, '-')}`,
    title: `tools/call latency at 1 in flight, ${client} client (n = ${Math.min(...results.filter((r) => r.client === client).map((r) => r.latency.n))}+ per server)`,
    unit: 'ms',
    series,
  };
}

/** `{ rows, targets, charts }` of the peer bench for the `clients` (HTTP client names). */
export function peerRows(
  results: readonly PeerResult[],
  clients: readonly string[],
): { rows: Row[]; targets: Target[]; charts: Chart[] } {
  const stdio = find(results, 'raw stdio', 'stdio direct');
  const rows = stdioRows(results);
  const targets: Target[] = [];
  const charts: Chart[] = [];
  for (const client of clients) {
    const limit = limitOf(find(results, client, 'http floor'), stdio);
    rows.push(...clientRows(results, client, limit));
    targets.push(...targetsOf(results, client, limit));
    charts.push(chartOf(results, client));
  }
  return { rows, targets, charts };
}
