/**
 * Benchmark harness: runs every `<name>.bench.ts` (built to `dist/<name>.bench.js`) but the
 * opt-in ones, or those named on argv, prints one markdown table with a ratio column
 * against each row's baseline (plus a table of target checks when a bench returns some),
 * and writes `bench/out/report.json`, `bench/out/report.md` and one SVG per returned chart.
 * Run with `npm run bench` at the root (installs and builds first); `npm run bench --
 * --help` lists the benches.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { arch, cpus, loadavg, platform } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { latencyChartSvg } from './chart.js';
import { stopProcesses } from './lib/processes.js';
import type {
  Bench,
  BenchContext,
  BenchResult,
  Chart,
  MeasureOptions,
  Row,
  Target,
} from './types.js';

const here = fileURLToPath(new URL('.', import.meta.url));
/** Reports go to bench/out, beside dist/. */
const out = fileURLToPath(new URL('../out/', import.meta.url));

/** Median of a non-empty list of numbers. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Times `fn` (sync or async): warms it up, then runs batches until `minMs` has passed and at
 * least `samples` batches ran. Returns the median time of one call, in milliseconds.
 */
async function measure(
  fn: () => unknown,
  { warmup = 5, samples = 15, minMs = 250, batch = 1 }: MeasureOptions = {},
): Promise<number> {
  for (let i = 0; i < warmup; i += 1) await fn();
  globalThis.gc?.();
  const perCall: number[] = [];
  const started = performance.now();
  while (perCall.length < samples || performance.now() - started < minMs) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i += 1) await fn();
    perCall.push((performance.now() - t0) / batch);
    if (perCall.length >= 10_000) break;
  }
  return median(perCall);
}

/** Formats a number with 3 significant digits, grouping large values. */
function fmt(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(3)).toString();
}

function table(rows: readonly Row[]): string {
  const lines = [
    '| group | name | value | unit | baseline | baseline value | ratio |',
    '| --- | --- | ---: | --- | --- | ---: | ---: |',
  ];
  for (const row of rows) {
    const ratio = row.baseline ? `${fmt(row.value / row.baseline.value)}x` : '';
    lines.push(
      `| ${row.group} | ${row.name} | ${fmt(row.value)} | ${row.unit} | ${row.baseline?.name ?? ''} | ${fmt(row.baseline?.value)} | ${ratio} |`,
    );
  }
  return lines.join('\n');
}

/**
 * Benches that run only when named: `peers` compares the server with peer aggregators
 * (mcp-proxy, supergateway) and takes the longest; the other benches measure this daemon.
 */
const OPT_IN: ReadonlySet<string> = new Set(['peers']);

const benches = (await readdir(here))
  .filter((file) => file.endsWith('.bench.js'))
  .map((file) => basename(file, '.bench.js'))
  .sort();
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  const listed = (names: string[]) => names.map((name) => `  ${name}`).join('\n');
  console.log(
    [
      'Usage: npm run bench [-- <name> ...]',
      '',
      'Without names, runs every bench but the opt-in ones; with names, runs those.',
      'BENCH_QUICK=1: fewer rounds (a smoke run). See bench/README.md.',
      '',
      `Benches run by default:\n${listed(benches.filter((name) => !OPT_IN.has(name)))}`,
      '',
      `Opt-in benches (run when named):\n${listed(benches.filter((name) => OPT_IN.has(name)))}`,
    ].join('\n'),
  );
  process.exit(0);
}
const unknown = args.filter((name) => !benches.includes(name));
if (unknown.length > 0) {
  console.error(`No benchmark named ${unknown.join(', ')} (npm run bench -- --help lists them)`);
  process.exit(1);
}
const files = (
  args.length === 0
    ? benches.filter((name) => !OPT_IN.has(name))
    : benches.filter((name) => args.includes(name))
).map((name) => `${name}.bench.js`);

function targetTable(targets: readonly (Target & { bench: string })[]): string {
  const lines = [
    '| bench | client | target | measured | goal | met |',
    '| --- | --- | --- | ---: | --- | --- |',
  ];
  for (const t of targets) {
    lines.push(
      `| ${t.bench} | ${t.client} | ${t.target} | ${fmt(t.measured)} ${t.unit} | ${t.goal} | ${t.met ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
const ctx: BenchContext = Object.freeze({ measure, gc: () => globalThis.gc?.() });
const rows: (Row & { bench: string })[] = [];
const targets: (Target & { bench: string })[] = [];
const charts: (Chart & { bench: string })[] = [];
for (const file of files) {
  const name = basename(file, '.bench.js');
  console.error(`running ${name} ...`);
  const started = performance.now();
  const bench = (await import(pathToFileURL(join(here, file)).href)) as { default: Bench };
  // A bench returns its rows, or `{ rows, targets?, charts? }`.
  const result: BenchResult = await bench.default(ctx);
  console.error(`${name} took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const parts = Array.isArray(result) ? { rows: result } : result;
  for (const row of parts.rows) rows.push({ bench: name, ...row });
  for (const target of parts.targets ?? []) targets.push({ bench: name, ...target });
  for (const chart of parts.charts ?? []) charts.push({ bench: name, ...chart });
}

const environment = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${platform()} ${arch()}`,
  cpu: cpus()[0]?.model ?? 'unknown',
  cpus: cpus().length,
  gcExposed: typeof globalThis.gc === 'function',
  /** 1, 5 and 15 minute load averages at the start and the end (other work skews figures). */
  loadAtStart,
  loadavg: loadavg().map((value) => Number(value.toFixed(2))),
};
const sections = [
  `# Benchmark report\n\n${environment.date}, Node ${environment.node}, ${environment.platform}, ${environment.cpus} x ${environment.cpu}, load ${environment.loadAtStart.join(' ')} at start, ${environment.loadavg.join(' ')} at end`,
  table(rows),
];
if (targets.length > 0) sections.push(`## Targets\n\n${targetTable(targets)}`);
if (charts.length > 0) {
  sections.push(`## Charts\n\n${charts.map((c) => `![${c.title}](${c.id}.svg)`).join('\n\n')}`);
}
const markdown = `${sections.join('\n\n')}\n`;
console.log(markdown);
await stopProcesses();
await mkdir(out, { recursive: true });
await writeFile(
  join(out, 'report.json'),
  `${JSON.stringify({ environment, rows, targets, charts }, null, 2)}\n`,
);
await writeFile(join(out, 'report.md'), markdown);
for (const chart of charts) await writeFile(join(out, `${chart.id}.svg`), latencyChartSvg(chart));
