/**
 * The rows of the sessions bench: one agent's start through the daemon beside the same agent
 * started directly (plain MCP config, and the daemon's projection), and where the daemon's
 * start spent its time (`startSteps`: the daemon's own steps apart from the agent's).
 */
import type { Row } from '../types.js';

/** Steps of `startSteps` that are the agent's own time (its process start and its answers). */
const AGENT_STEPS = new Set(['spawn', 'handshake', 'open']);

/** The median of a non-empty list. */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
/** The sum of `values`. */
export const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

/** One start through the daemon: its time to the first list, and its steps. */
export interface DaemonStart {
  readonly total: number;
  readonly steps: Readonly<Record<string, number>>;
  /** Request to answer, minus the steps: HTTP, validation, the binding check. */
  readonly outsideSteps: number;
  /** Answer to the first `tools/list`: the agent connecting its MCP client. */
  readonly afterAnswer: number;
}

/** The rows of one agent's starts: totals side by side, then where the daemon's time went. */
export function startRows(
  name: string,
  throughDaemon: DaemonStart[],
  direct: number[],
  projected: number[],
): Row[] {
  const group = 'session start (request to first tools/list), p50';
  const directMs = median(direct);
  const rows: Row[] = [
    { group, name: `${name} started directly`, value: directMs, unit: 'ms' },
    {
      group,
      name: `${name} through tuttid`,
      value: median(throughDaemon.map((start) => start.total)),
      unit: 'ms',
      baseline: { name: `${name} started directly`, value: directMs },
    },
    {
      group,
      name: `${name} added (through tuttid - direct, median of paired rounds)`,
      value: median(throughDaemon.map((start, i) => start.total - direct[i]!)),
      unit: 'ms',
    },
    {
      group,
      name: `${name} started directly from the daemon's projection (its config, no daemon path)`,
      value: median(projected),
      unit: 'ms',
      baseline: { name: `${name} started directly`, value: directMs },
    },
    {
      group,
      name: `${name} of the added: the projected config's (projection - direct, paired)`,
      value: median(projected.map((ms, i) => ms - direct[i]!)),
      unit: 'ms',
    },
    {
      group,
      name: `${name} of the added: the daemon's start path (through tuttid - projection, paired)`,
      value: median(throughDaemon.map((start, i) => start.total - projected[i]!)),
      unit: 'ms',
    },
  ];
  const names = [...new Set(throughDaemon.flatMap((start) => Object.keys(start.steps)))];
  const step = (key: string) => median(throughDaemon.map((start) => start.steps[key] ?? 0));
  const own = names.filter((key) => !AGENT_STEPS.has(key));
  const agentSteps = names.filter((key) => AGENT_STEPS.has(key));
  const steps = 'session start through tuttid: where the time goes, p50';
  rows.push(
    {
      group: steps,
      name: `${name} daemon's own steps (${own.join(', ')})`,
      value: median(throughDaemon.map((start) => sum(own.map((key) => start.steps[key] ?? 0)))),
      unit: 'ms',
    },
    ...own.map((key) => ({
      group: steps,
      name: `${name} step ${key}`,
      value: step(key),
      unit: 'ms',
    })),
    {
      group: steps,
      name: `${name} request handling outside the steps (HTTP, checks, answer)`,
      value: median(throughDaemon.map((start) => start.outsideSteps)),
      unit: 'ms',
    },
    {
      group: steps,
      name: `${name} agent's steps (${agentSteps.join(', ')})`,
      value: median(
        throughDaemon.map((start) => sum(agentSteps.map((key) => start.steps[key] ?? 0))),
      ),
      unit: 'ms',
    },
    ...agentSteps.map((key) => ({
      group: steps,
      name: `${name} step ${key}`,
      value: step(key),
      unit: 'ms',
    })),
    {
      group: steps,
      name: `${name} answer to first tools/list (the agent's MCP client connecting)`,
      value: median(throughDaemon.map((start) => start.afterAnswer)),
      unit: 'ms',
    },
  );
  return rows;
}
