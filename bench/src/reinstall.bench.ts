/**
 * Reinstalling a release of 5,000 files into the real store (`openStore`, in process). The
 * identical content again (`changed: false`, recognised in place) beside the full copy
 * path, its baseline: what that reinstall did before, `copyRelease` of the whole release
 * into a staging folder under the home, then its removal. And the cost of the compare
 * when it finds no match: the same version with its last file changed (digested in full,
 * then copied and installed) beside a new version (its manifest matches no installed one:
 * nothing digested, copied and installed). Each figure is the median of its rounds, every
 * case in every round, each pair in an order that flips every round, so drifting machine
 * load hits both alike; wall time, and CPU time of the whole process (its file system
 * threads included), which other work on the machine skews less. `BENCH_QUICK=1`: 2
 * rounds.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyRelease, openStore } from '@tutti/core/internal';
import { benchDir } from './lib/daemon-home.js';
import { QUICK } from './lib/measure-calls.js';
import type { BenchContext, BenchResult, Row } from './types.js';

const FOLDERS = 50;
const FILES_PER_FOLDER = 100;
const ROUNDS = QUICK ? 2 : 7;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** About 1 KiB of text that differs per file. */
function content(folder: number, file: number): string {
  return `${`file ${folder}/${file} `.repeat(64)}\n`;
}

/** Writes the manifest of `version` (its whole content, so a version changes its bytes). */
function writeManifest(release: string, version: string): Promise<void> {
  const manifest = {
    key: 'bulk',
    name: 'Bulk',
    description: 'A release of 5,000 files.',
    version,
    mcp: { command: process.execPath, args: ['./server.mjs'] },
  };
  return writeFile(join(release, 'tutti-connector.json'), JSON.stringify(manifest, null, 2));
}

/** A release of FOLDERS x FILES_PER_FOLDER files, a server script and its manifest. */
async function writeBulkRelease(release: string): Promise<void> {
  for (let folder = 0; folder < FOLDERS; folder += 1) {
    const dir = join(release, 'data', `d${String(folder).padStart(2, '0')}`);
    await mkdir(dir, { recursive: true });
    for (let file = 0; file < FILES_PER_FOLDER; file += 1) {
      await writeFile(join(dir, `f${String(file).padStart(3, '0')}.txt`), content(folder, file));
    }
  }
  await writeFile(join(release, 'server.mjs'), 'process.stdin.resume();\n');
  await writeManifest(release, '1.0.0');
}

/** Wall time and CPU time (user + system, every thread of this process) `fn` took, in ms. */
async function timed(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}

/** The cases, each with its row name and its name as a baseline. */
const CASES = {
  copy: ['full copy into staging, then removed (the identical reinstall before)', 'full copy'],
  identical: ['identical content again (changed: false, compared in place)', 'identical'],
  version: ['a new version (nothing digested; copied, installed)', 'a new version'],
  lastFile: ['same version, last file changed (digested in full; copied, installed)', 'last file'],
} as const;
type Case = keyof typeof CASES;

/** The reinstall bench. */
export default async function reinstallBench(ctx: BenchContext): Promise<BenchResult> {
  const temp = await benchDir('tutti-bench-reinstall-');
  try {
    const release = join(temp.dir, 'bulk');
    await writeBulkRelease(release);
    // The last file a walk in name order reaches (`server.mjs` and the manifest sort after
    // `data/`, and stay the same).
    const last = join(
      release,
      'data',
      `d${String(FOLDERS - 1).padStart(2, '0')}`,
      `f${String(FILES_PER_FOLDER - 1).padStart(3, '0')}.txt`,
    );
    const home = join(temp.dir, 'home');
    const store = await openStore(home);
    await store.install(release);
    const times: Record<Case, { wall: number; cpu: number }[]> = {
      identical: [],
      version: [],
      lastFile: [],
      copy: [],
    };
    const run = async (which: Case, fn: () => Promise<unknown>) => {
      // Garbage of the work before is collected outside the time of this one.
      ctx.gc();
      times[which].push(await timed(fn));
    };
    const install = (which: Case, changed: boolean) =>
      run(which, async () => {
        const answer = await store.install(release);
        if (answer.changed !== changed) {
          throw new Error(`"${CASES[which][0]}" answered changed: ${answer.changed}`);
        }
      });
    const copy = () =>
      run('copy', async () => {
        const staging = join(home, 'releases', '.staging-bench');
        await copyRelease(release, staging);
        await rm(staging, { recursive: true, force: true });
      });
    const newVersion = async (round: number) => {
      await writeManifest(release, `1.0.${round}`);
      await install('version', true);
    };
    const newLastFile = async (round: number) => {
      await writeFile(last, `${content(FOLDERS - 1, FILES_PER_FOLDER - 1)}round ${round}\n`);
      await install('lastFile', true);
    };
    const identical = () => install('identical', false);
    for (let round = 1; round <= ROUNDS; round += 1) {
      const pairs = [
        [() => newVersion(round), () => newLastFile(round)],
        [identical, copy],
      ];
      for (const pair of pairs) {
        for (const step of round % 2 === 1 ? pair : [...pair].reverse()) await step();
      }
      await store.pruneReleases();
    }
    const rows: Row[] = [];
    for (const unit of ['wall', 'cpu'] as const) {
      const group = `reinstall, ${FOLDERS * FILES_PER_FOLDER} files, ${unit} time (${ROUNDS} rounds, median)`;
      const of = (which: Case) => median(times[which].map((time) => time[unit]));
      const row = (which: Case, baseline?: Case): Row => ({
        group,
        name: CASES[which][0],
        value: of(which),
        unit: 'ms',
        ...(baseline && { baseline: { name: CASES[baseline][1], value: of(baseline) } }),
      });
      rows.push(row('copy'), row('identical', 'copy'), row('version'), row('lastFile', 'version'));
    }
    return rows;
  } finally {
    await temp.remove();
  }
}
