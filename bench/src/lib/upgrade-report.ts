/**
 * Turns the upgrade bench's measurements into report rows (the load during the upgrades
 * beside the same load without them, and the time of one upgrade beside one without load),
 * target checks (no failed call, no failed upgrade, no upstream left behind) and a latency
 * chart.
 */
import type { Chart, Row, Target } from '../types.js';
import { type Summary, summarize } from './measure-calls.js';
import type { PhaseStats } from './upgrade-load.js';

/** What the upgrade bench measured. */
export interface UpgradeMeasurements {
  readonly planned: number;
  readonly upgradeMs: number[];
  readonly upgradeProblems: string[];
  readonly unloadedMs: number[];
  readonly during: PhaseStats;
  readonly baseline: PhaseStats;
  readonly total: PhaseStats;
  readonly inFlight: number;
  readonly upstreamsLeft: number;
}

const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * `{ rows, targets, charts }` from `m`: `{ planned, upgradeMs, upgradeProblems, unloadedMs,
 * during, baseline, total, inFlight, upstreamsLeft }` (during/baseline/total: phaseStats).
 */
export function upgradeReport(m: UpgradeMeasurements): {
  rows: Row[];
  targets: Target[];
  charts: Chart[];
} {
  const done = m.upgradeMs.length;
  const upgrade = summarize(m.upgradeMs);
  const unloaded = summarize(m.unloadedMs);
  const load = `${m.inFlight} in flight`;
  const group = `${done} live upgrades under load (${load}, raw http)`;
  const baselineName = `same load, no upgrade (${(m.baseline.ms / 1000).toFixed(1)} s between the blocks)`;
  const side = (name: string, value: number, unit: string, baselineValue: number): Row[] => [
    { group, name, value, unit, baseline: { name: baselineName, value: baselineValue } },
    { group, name: `${name}, ${baselineName}`, value: baselineValue, unit },
  ];
  const unloadedName = `one upgrade without load, mean of ${m.unloadedMs.length}`;
  const rows: Row[] = [
    { group, name: `upgrades done (of ${m.planned} planned)`, value: done, unit: 'upgrades' },
    { group, name: 'upgrades failed', value: m.upgradeProblems.length, unit: 'upgrades' },
    { group, name: 'tools/call during the upgrades', value: m.during.calls, unit: 'calls' },
    { group, name: 'tools/call in the whole run', value: m.total.calls, unit: 'calls' },
    { group, name: 'failed calls in the whole run', value: m.total.failed, unit: 'calls' },
    ...side('calls/s during the upgrades', m.during.callsPerSec, 'calls/s', m.baseline.callsPerSec),
    ...side('p50 during the upgrades', m.during.latency.p50, 'ms', m.baseline.latency.p50),
    ...side('p99 during the upgrades', m.during.latency.p99, 'ms', m.baseline.latency.p99),
    ...side('max during the upgrades', m.during.latency.max, 'ms', m.baseline.latency.max),
    {
      group,
      name: 'one upgrade (install request to answer), mean',
      value: mean(m.upgradeMs),
      unit: 'ms',
      baseline: { name: unloadedName, value: mean(m.unloadedMs) },
    },
    { group, name: unloadedName, value: mean(m.unloadedMs), unit: 'ms' },
    { group, name: 'one upgrade, p50', value: upgrade.p50, unit: 'ms' },
    { group, name: 'one upgrade, p99', value: upgrade.p99, unit: 'ms' },
    { group, name: 'one upgrade without load, max', value: unloaded.max, unit: 'ms' },
    {
      group,
      name: 'upstream processes left after the last upgrade',
      value: m.upstreamsLeft,
      unit: 'processes',
    },
  ];
  const client = `raw http, ${load}`;
  const targets: Target[] = [
    {
      client,
      target: `failed tools/call during ${done} upgrades (whole run)`,
      measured: m.total.failed,
      unit: 'calls',
      goal: '0',
      met: m.total.failed === 0,
    },
    {
      client,
      target: `failed upgrades (of ${done})`,
      measured: m.upgradeProblems.length,
      unit: 'upgrades',
      goal: '0',
      met: m.upgradeProblems.length === 0,
    },
    {
      client,
      target: 'upstream processes after the last upgrade (old ones drained and gone)',
      measured: m.upstreamsLeft,
      unit: 'processes',
      goal: '1',
      met: m.upstreamsLeft === 1,
    },
  ];
  const percentiles = (latency: Summary) => ({
    p50: latency.p50,
    p90: latency.p90,
    p99: latency.p99,
    'p99.9': latency['p99.9'],
    max: latency.max,
  });
  const charts = [
    {
      id: 'upgrades-latency',
      title: `tools/call latency at ${load}: ${done} upgrades vs none (raw http)`,
      unit: 'ms',
      series: [
        { name: 'no upgrade', values: percentiles(m.baseline.latency) },
        { name: `${done} upgrades`, values: percentiles(m.during.latency) },
      ],
    },
  ];
  return { rows, targets, charts };
}
