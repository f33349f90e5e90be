/**
 * A small SVG chart writer for the bench report (no chart library): horizontal grouped
 * bars, one group per series (e.g. a server), one bar per percentile, on a log-10 axis
 * (latency percentiles span decades) with 1-2-5 ticks, a legend and each bar's value.
 */
import type { Chart } from './types.js';

const COLORS = ['#4c78a8', '#f58518', '#e45756', '#72b7b2', '#54a24b', '#b279a2'];
const BAR = 12;
const GAP = 10;
const LEFT = 190;
const RIGHT = 80;
const WIDTH = 820;
const TOP = 64;

/** Escapes text for SVG content and attributes. */
function xml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Ticks 1, 2, 5 x 10^k from 10^`lo` to 10^`hi` (inclusive). */
export function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let power = lo; power <= hi; power += 1) {
    for (const m of [1, 2, 5]) {
      const tick = m * 10 ** power;
      if (tick <= 10 ** hi * 1.0001) ticks.push(tick);
    }
  }
  return ticks;
}

function label(value: number): string {
  return Number(value.toPrecision(3)).toString();
}

/**
 * SVG text of `chart`: `{ title, unit, series: [{ name, values: { [key]: number } }] }`.
 * Keys of the first series' `values` are the bars of every group, in order.
 */
export function latencyChartSvg(chart: Chart): string {
  const keys = Object.keys(chart.series[0]?.values ?? {});
  const finite = chart.series
    .flatMap((s) => keys.map((k) => s.values[k]))
    .filter((value): value is number => Number.isFinite(value));
  const positive = finite.filter((value) => value > 0);
  const lo = Math.floor(Math.log10(Math.min(...positive, 1)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...positive, 1))));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const x = (value: number) =>
    LEFT + ((Math.log10(Math.max(value, 10 ** lo)) - lo) / (hi - lo)) * plotWidth;
  const groupHeight = keys.length * BAR + GAP;
  const height = TOP + chart.series.length * groupHeight + 40;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${xml(chart.title)}</text>`,
  ];
  keys.forEach((key, i) => {
    const lx = LEFT + i * 90;
    out.push(
      `<rect x="${lx}" y="32" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`,
      `<text x="${lx + 16}" y="42">${xml(key)}</text>`,
    );
  });
  const bottom = TOP + chart.series.length * groupHeight;
  for (const tick of logTicks(lo, hi)) {
    const tx = x(tick).toFixed(1);
    out.push(
      `<line x1="${tx}" y1="${TOP - 6}" x2="${tx}" y2="${bottom}" stroke="#ddd"/>`,
      `<text x="${tx}" y="${bottom + 14}" text-anchor="middle">${label(tick)}</text>`,
    );
  }
  out.push(
    `<text x="${LEFT + plotWidth / 2}" y="${bottom + 32}" text-anchor="middle">${xml(chart.unit)} (log scale)</text>`,
  );
  chart.series.forEach((series, g) => {
    const gy = TOP + g * groupHeight;
    out.push(
      `<text x="${LEFT - 8}" y="${gy + (keys.length * BAR) / 2 + 4}" text-anchor="end">${xml(series.name)}</text>`,
    );
    keys.forEach((key, i) => {
      const value = series.values[key];
      if (value === undefined || !Number.isFinite(value)) return;
      const y = gy + i * BAR;
      const w = Math.max(1, x(value) - LEFT).toFixed(1);
      out.push(
        `<rect x="${LEFT}" y="${y}" width="${w}" height="${BAR - 2}" fill="${COLORS[i % COLORS.length]}"><title>${xml(`${series.name} ${key}: ${value} ${chart.unit}`)}</title></rect>`,
        `<text x="${(LEFT + Number(w) + 4).toFixed(1)}" y="${y + BAR - 3}">${label(value)}</text>`,
      );
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
