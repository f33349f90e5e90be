/**
 * The rows of the turn bench: each figure of one agent through the daemon beside the same
 * figure driven directly, and the daemon's own part as its probe measured it.
 */
import type { DaemonPart, TurnTiming } from './turn-stamps.js';
import type { Row } from '../types.js';

/** The value at quantile `q` (nearest rank) of a non-empty list. */
export const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/** The median (nearest rank). */
export const median = (values: readonly number[]) => quantile(values, 0.5);

/** The daemon's own part, from the probe inside it. */
export function daemonRows(name: string, parts: DaemonPart[]): Row[] {
  const group = 'inside tuttid (probe): request body read to prompt written to the agent';
  const relays = parts.flatMap((part) => part.relay);
  return [
    { group, name: `${name} p50`, value: median(parts.map((part) => part.start)), unit: 'ms' },
    {
      group: "inside tuttid (probe): agent's chunk read to the SSE frame written",
      name: `${name} p50`,
      value: median(relays) * 1000,
      unit: 'us',
    },
    {
      group: "inside tuttid (probe): agent's chunk read to the SSE frame written",
      name: `${name} p90`,
      value: quantile(relays, 0.9) * 1000,
      unit: 'us',
    },
    {
      group: 'turn start through tuttid, the hops outside it, p50',
      name: `${name}: client sent the request -> tuttid read its body (loopback HTTP, tuttid waking up)`,
      value: median(parts.map((part) => part.startIn)),
      unit: 'ms',
    },
    {
      group: 'turn start through tuttid, the hops outside it, p50',
      name: `${name}: tuttid wrote the prompt -> the shim read it (pipe, shim waking up)`,
      value: median(parts.map((part) => part.startOut)),
      unit: 'ms',
    },
    {
      group: 'per event through tuttid, the hops outside it, p50',
      name: `${name}: shim wrote the line -> tuttid read it (pipe, tuttid waking up)`,
      value: median(parts.flatMap((part) => part.hopIn)) * 1000,
      unit: 'us',
    },
    {
      group: 'per event through tuttid, the hops outside it, p50',
      name: `${name}: tuttid wrote the SSE frame -> client parsed it (loopback HTTP, client waking up)`,
      value: median(parts.flatMap((part) => part.hopOut)) * 1000,
      unit: 'us',
    },
  ];
}

/** The rows of one agent: each figure through the daemon beside the same one direct. */
export function turnRows(name: string, viaDaemon: TurnTiming[], viaDirect: TurnTiming[]): Row[] {
  const pair = (group: string, unit: 'ms' | 'us', pick: (t: TurnTiming[]) => number[], q = 0.5) => {
    const scale = unit === 'us' ? 1000 : 1;
    const direct = quantile(pick(viaDirect), q) * scale;
    return [
      { group, name: `${name} direct`, value: direct, unit },
      {
        group,
        name: `${name} through tuttid`,
        value: quantile(pick(viaDaemon), q) * scale,
        unit,
        baseline: { name: `${name} direct`, value: direct },
      },
    ];
  };
  return [
    ...pair('turn start: request sent to prompt read by the agent, p50', 'ms', (t) =>
      t.map((x) => x.start),
    ),
    ...pair('turn: request sent to first text event, p50', 'ms', (t) => t.map((x) => x.firstEvent)),
    ...pair('agent alone: prompt read to first delta written, p50', 'ms', (t) =>
      t.map((x) => x.agent),
    ),
    ...pair(
      'agent alone: first to last delta written (the model spaced them over 190 ms), p50',
      'ms',
      (t) => t.map((x) => x.spread),
    ),
    ...pair('per event: delta written by the agent to event parsed, p50', 'us', (t) =>
      t.flatMap((x) => x.relay),
    ),
    ...pair(
      'per event: delta written by the agent to event parsed, p90',
      'us',
      (t) => t.flatMap((x) => x.relay),
      0.9,
    ),
  ];
}
