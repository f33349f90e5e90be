/**
 * Benchmark harness: runs every `bench/<name>.bench.mjs` (or those named on argv), prints
 * one markdown table with a ratio column against each row's baseline, and writes
 * `bench/out/report.json` and `bench/out/report.md`. Run with `npm run bench` (builds first).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { arch, cpus, platform } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Median of a non-empty list of numbers. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Times `fn` (sync or async): warms it up, then runs batches until `minMs` has passed and at
 * least `samples` batches ran. Returns the median time of one call, in milliseconds.
 */
async function measure(fn, { warmup = 5, samples = 15, minMs = 250, batch = 1 } = {}) {
  for (let i = 0; i < warmup; i += 1) await fn();
  globalThis.gc?.();
  const perCall = [];
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
function fmt(value) {
  if (value === undefined || Number.isNaN(value)) return '';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(3)).toString();
}

function table(rows) {
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

const wanted = new Set(process.argv.slice(2));
const files = (await readdir(here))
  .filter((file) => file.endsWith('.bench.mjs'))
  .filter((file) => wanted.size === 0 || wanted.has(basename(file, '.bench.mjs')))
  .sort();
if (files.length === 0) {
  console.error(`No benchmark matches ${[...wanted].join(', ') || '*.bench.mjs'}`);
  process.exit(1);
}

const ctx = Object.freeze({ measure, gc: () => globalThis.gc?.() });
const rows = [];
for (const file of files) {
  const name = basename(file, '.bench.mjs');
  console.error(`running ${name} ...`);
  const bench = await import(pathToFileURL(join(here, file)).href);
  for (const row of await bench.default(ctx)) rows.push({ bench: name, ...row });
}

const environment = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${platform()} ${arch()}`,
  cpu: cpus()[0]?.model ?? 'unknown',
  cpus: cpus().length,
  gcExposed: typeof globalThis.gc === 'function',
};
const markdown = `# Benchmark report\n\n${environment.date}, Node ${environment.node}, ${environment.platform}, ${environment.cpus} x ${environment.cpu}\n\n${table(rows)}\n`;
console.log(markdown);
await mkdir(join(here, 'out'), { recursive: true });
await writeFile(
  join(here, 'out', 'report.json'),
  `${JSON.stringify({ environment, rows }, null, 2)}\n`,
);
await writeFile(join(here, 'out', 'report.md'), markdown);
