/**
 * Live upgrades under load: a real `tuttid` with one stdio connector, 16 `tools/call` in
 * flight through the `connector` server (raw HTTP client, every answer checked), and 100
 * upgrades in a row, each a new release folder with the next version installed through the
 * control API while the load runs. Reports failed calls (target 0), calls/s and p50/p99
 * during the upgrades beside the same load without upgrades (short baseline chunks between
 * blocks of upgrades, so drifting machine load hits both alike), and the time of one
 * upgrade beside one without load. The upgrades stop after a time budget, so a run stays
 * under 90 s on a busy machine; `BENCH_QUICK=1`: 10 upgrades and shorter phases.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { STDIO_SERVER } from '@tutti/test-kit';
import type { RequestConnection } from './clients/connection.js';
import { connectRawHttp } from './clients/raw-http.js';
import { benchDir } from './lib/daemon-home.js';
import { descendants, startTuttid, type Tuttid } from './lib/daemon-process.js';
import { QUICK } from './lib/measure-calls.js';
import { controlClient } from './lib/upgrade-control.js';
import { phaseStats, startLoad } from './lib/upgrade-load.js';
import { UPGRADE_KEY, upgradeVersion, writeUpgradeRelease } from './lib/upgrade-releases.js';
import { upgradeReport } from './lib/upgrade-report.js';
import type { BenchResult } from './types.js';

const PLAN = Object.freeze(
  QUICK
    ? { upgrades: 10, blocks: 2, unloaded: 3, warmUpMs: 500, chunkMs: 500, budgetMs: 30_000 }
    : { upgrades: 100, blocks: 10, unloaded: 5, warmUpMs: 2000, chunkMs: 600, budgetMs: 70_000 },
);
const IN_FLIGHT = 16;
/** Wait for calls still in flight when the load stops, before the client is closed. */
const STOP_GRACE_MS = 10_000;

/** Live fixture upstreams under `daemon`; waits up to 5 s for drained ones to exit. */
async function upstreamsLeft(daemon: Tuttid): Promise<number> {
  const count = () =>
    descendants(daemon.pid).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(STDIO_SERVER);
      } catch {
        return false;
      }
    }).length;
  for (let i = 0; i < 100 && count() > 1; i += 1) await sleep(50);
  return count();
}

const load1 = () => (loadavg()[0] ?? 0).toFixed(2);

/** The upgrades bench. */
export default async function upgradesBench(): Promise<BenchResult> {
  const dir = await benchDir('tutti-bench-upgrades-');
  let daemon: Tuttid | undefined;
  let client: RequestConnection | undefined;
  let load: ReturnType<typeof startLoad> | undefined;
  try {
    const home = join(dir.dir, 'home');
    await mkdir(home);
    const total = 1 + PLAN.unloaded + PLAN.upgrades;
    const releases: string[] = [];
    for (let n = 0; n < total; n += 1) {
      releases.push(await writeUpgradeRelease(join(dir.dir, 'releases'), n));
    }
    daemon = await startTuttid(home);
    const api = await controlClient(home, daemon.ready);

    // The first install and a few upgrades without load: the unloaded upgrade time.
    const release = (n: number): string => {
      const path = releases[n];
      if (path === undefined) throw new Error(`upgrades: no release ${n} was written`);
      return path;
    };
    let last = await api.install(release(0), upgradeVersion(0));
    if (!last.ok) throw new Error(`first install failed: ${last.problem}`);
    let n = 0;
    const unloadedMs: number[] = [];
    for (let i = 0; i < PLAN.unloaded; i += 1) {
      n += 1;
      const answer = await api.install(release(n), upgradeVersion(n), last.status);
      if (!answer.ok) throw new Error(`upgrade to ${upgradeVersion(n)} failed: ${answer.problem}`);
      unloadedMs.push(answer.ms);
      last = answer;
    }

    const loadClient = await connectRawHttp(await api.binding(dir.dir));
    client = loadClient;
    load = startLoad(loadClient, `${UPGRADE_KEY}_echo`, { inFlight: IN_FLIGHT });
    await sleep(PLAN.warmUpMs);
    console.error(`upgrades: load average ${load1()} when the upgrades start`);

    // Baseline chunk, block of upgrades, ..., baseline chunk.
    const upgradeMs: number[] = [];
    const upgradeProblems: string[] = [];
    const perBlock = Math.ceil(PLAN.upgrades / PLAN.blocks);
    const deadline = performance.now() + PLAN.budgetMs;
    while (upgradeMs.length < PLAN.upgrades && performance.now() < deadline) {
      load.phase('baseline');
      await sleep(PLAN.chunkMs);
      load.phase('upgrades');
      const blockEnd = Math.min(PLAN.upgrades, upgradeMs.length + perBlock);
      while (upgradeMs.length < blockEnd && performance.now() < deadline) {
        n += 1;
        const answer = await api.install(release(n), upgradeVersion(n), last.status);
        upgradeMs.push(answer.ms);
        if (answer.ok) last = answer;
        else upgradeProblems.push(`${upgradeVersion(n)}: ${answer.problem}`);
      }
    }
    load.phase('baseline');
    await sleep(PLAN.chunkMs);
    const { phases, reasons } = await load.stop(STOP_GRACE_MS, () => loadClient.close());
    load = undefined;
    const left = await upstreamsLeft(daemon);

    const measured = {
      planned: PLAN.upgrades,
      upgradeMs,
      upgradeProblems,
      unloadedMs,
      inFlight: IN_FLIGHT,
      during: phaseStats(...phases.filter((phase) => phase.name === 'upgrades')),
      baseline: phaseStats(...phases.filter((phase) => phase.name === 'baseline')),
      total: phaseStats(...phases),
      upstreamsLeft: left,
    };
    console.error(
      `upgrades: ${upgradeMs.length} upgrades in ${(measured.during.ms / 1000).toFixed(1)} s, ${measured.total.calls} calls, ${measured.total.failed} failed; load average ${load1()} at the end`,
    );
    for (const line of [...upgradeProblems, ...reasons]) console.error(`upgrades: ${line}`);
    return upgradeReport(measured);
  } finally {
    if (load) await load.stop(1000, async () => client?.close());
    await client?.close();
    await daemon?.stop();
    await dir.remove();
  }
}
