/**
 * Daemon benchmarks on real `tuttid` processes and real stdio upstreams: (1) cold start of
 * 50 stdio connectors to all-ready against the slowest of a sample of single connectors
 * started alone the same way; (2) tuttid's memory with 100 connectors x 50 tools against the
 * same daemon with none, plus the memory of the upstream processes themselves.
 * `BENCH_QUICK=1` runs fewer rounds.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { STDIO_SERVER } from '@tutti/test-kit';
import { benchDir, homeWithReleases, writeStdioReleases } from './lib/daemon-home.js';
import { procStatusKiB, pssKiB, startTuttid, type Tuttid } from './lib/daemon-process.js';
import type { Row } from './types.js';
import { parallelFixtureStartMs } from './lib/daemon-upstream-floor.js';

/** Tools every fixture server has besides its generated `tool_<n>` ones. */
const FIXTURE_BUILTIN_TOOLS = 8;
const TOOLS = 50;
const COLD_CONNECTORS = 50;
const RSS_CONNECTORS = 100;
/** Wait after the ready line before reading memory, so start-up garbage can be collected. */
const SETTLE_MS = 1000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const mib = (kib: number) => kib / 1024;

/** Memory of a ready daemon and of what it started, in KiB. */
interface Memory {
  rss: number;
  hwm: number;
  upstreams: number;
  upstreamRss: number;
  upstreamPss: number;
  helpers: number;
  helperPss: number;
}

/**
 * Starts tuttid on a fresh home holding `releases`; checks every connector is ready. The
 * time is to the settled line: the ready line comes as soon as the servers listen.
 */
async function coldStart<T>(
  releases: readonly string[],
  keep?: (daemon: Tuttid) => Promise<T>,
): Promise<{ readyMs: number; measured: T | undefined }> {
  const home = await homeWithReleases(releases);
  let daemon: Tuttid | undefined;
  try {
    daemon = await startTuttid(home.home);
    const { connectors } = daemon.settled ?? { connectors: [] };
    const notReady = connectors.filter((c) => c.state !== 'ready' || c.toolCount !== TOOLS);
    if (connectors.length !== releases.length || notReady.length > 0) {
      throw new Error(
        `tuttid ready with ${connectors.length}/${releases.length} connectors, not ready or wrong tool count: ${notReady.map((c) => `${c.key} ${c.state} ${c.toolCount}`).join(', ')}`,
      );
    }
    const measured = keep ? await keep(daemon) : undefined;
    return { readyMs: daemon.settledMs, measured };
  } finally {
    await daemon?.stop();
    await home.remove();
  }
}

function isUpstream(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(STDIO_SERVER);
  } catch {
    return false;
  }
}

/**
 * Memory of a ready daemon, in KiB: its own VmRSS and VmHWM, the PSS and VmRSS sums of the
 * upstream servers it started, and the PSS of its other children (the supervisor's reaper).
 */
async function memory(daemon: Tuttid): Promise<Memory> {
  await sleep(SETTLE_MS);
  const result: Memory = {
    rss: procStatusKiB(daemon.pid, 'VmRSS') ?? Number.NaN,
    hwm: procStatusKiB(daemon.pid, 'VmHWM') ?? Number.NaN,
    upstreams: 0,
    upstreamRss: 0,
    upstreamPss: 0,
    helpers: 0,
    helperPss: 0,
  };
  for (const pid of daemon.children()) {
    if (isUpstream(pid)) {
      result.upstreams += 1;
      result.upstreamRss += procStatusKiB(pid, 'VmRSS') ?? 0;
      result.upstreamPss += pssKiB(pid) ?? 0;
    } else {
      result.helpers += 1;
      result.helperPss += pssKiB(pid) ?? 0;
    }
  }
  return result;
}

/** The daemon bench. */
export default async function daemonBench(): Promise<Row[]> {
  const quick = process.env.BENCH_QUICK === '1';
  const rounds = quick ? 1 : 2;
  const singlesPerRound = quick ? 3 : 2;
  const dir = await benchDir('tutti-bench-releases-');
  try {
    const releases = await writeStdioReleases(
      dir.dir,
      RSS_CONNECTORS,
      TOOLS - FIXTURE_BUILTIN_TOOLS,
    );
    const cold = releases.slice(0, COLD_CONNECTORS);

    // Warm-up: the file cache holds tuttid, its imports and the fixture server afterwards.
    await coldStart(releases.slice(0, 1));

    // (1) Rounds alternate one 50-connector start with single starts of sampled connectors.
    const coldMs: number[] = [];
    const singleMs: number[] = [];
    const zeroMs: number[] = [];
    const floorMs: number[] = [];
    let zero: { readyMs: number; measured: Memory | undefined } | undefined;
    for (let round = 0; round < rounds; round += 1) {
      // The 0-connector daemon is both the start floor and the memory baseline.
      zero = await coldStart([], memory);
      zeroMs.push(zero.readyMs);
      floorMs.push(await parallelFixtureStartMs(COLD_CONNECTORS, TOOLS - FIXTURE_BUILTIN_TOOLS));
      coldMs.push((await coldStart(cold)).readyMs);
      for (let i = 0; i < singlesPerRound; i += 1) {
        const index = ((round * singlesPerRound + i) * 17) % COLD_CONNECTORS;
        singleMs.push((await coldStart([cold[index]!])).readyMs);
      }
    }
    const cold50 = median(coldMs);
    const slowestSingle = Math.max(...singleMs);
    console.error(
      `daemon: 50 connectors ${cold50.toFixed(0)} ms vs slowest single ${slowestSingle.toFixed(0)} ms (${(cold50 / slowestSingle).toFixed(1)}x); singles ${singleMs.map((v) => v.toFixed(0)).join(', ')}`,
    );

    // (2) Memory: the same daemon with 100 connectors (the baseline is the last 0 above).
    const full = await coldStart(releases, memory);
    if (!zero?.measured || !full.measured) throw new Error('daemon: no memory was measured');
    const zeroMemory = zero.measured;
    const fullMemory = full.measured;
    const perConnectorKiB = (fullMemory.rss - zeroMemory.rss) / RSS_CONNECTORS;
    console.error(
      `daemon: RSS 0 connectors ${mib(zeroMemory.rss).toFixed(1)} MiB, 100 x ${TOOLS} tools ${mib(fullMemory.rss).toFixed(1)} MiB (${perConnectorKiB.toFixed(0)} KiB each); ${fullMemory.upstreams} upstreams ${mib(fullMemory.upstreamPss).toFixed(0)} MiB PSS`,
    );

    const singleName = `slowest single connector alone (of ${singleMs.length})`;
    const zeroName = 'tuttid VmRSS, 0 connectors';
    return [
      {
        group: 'daemon cold start',
        name: `${COLD_CONNECTORS} stdio connectors x ${TOOLS} tools, spawn to connectors settled (median of ${coldMs.length})`,
        value: cold50,
        unit: 'ms',
        baseline: { name: singleName, value: slowestSingle },
      },
      { group: 'daemon cold start', name: singleName, value: slowestSingle, unit: 'ms' },
      {
        group: 'daemon cold start',
        name: `median single connector alone (of ${singleMs.length})`,
        value: median(singleMs),
        unit: 'ms',
      },
      {
        group: 'daemon cold start',
        name: `0 connectors, spawn to settled line (median of ${zeroMs.length})`,
        value: median(zeroMs),
        unit: 'ms',
      },
      {
        group: 'daemon cold start',
        name: `floor: ${COLD_CONNECTORS} fixture servers spawned at once, no daemon, to their ready line (median of ${floorMs.length})`,
        value: median(floorMs),
        unit: 'ms',
      },
      {
        group: 'daemon cold start',
        name: `${RSS_CONNECTORS} stdio connectors x ${TOOLS} tools, spawn to connectors settled (1 run)`,
        value: full.readyMs,
        unit: 'ms',
        baseline: { name: singleName, value: slowestSingle },
      },
      {
        group: 'daemon memory',
        name: `tuttid VmRSS, ${RSS_CONNECTORS} stdio connectors x ${TOOLS} tools (${SETTLE_MS} ms after ready)`,
        value: mib(fullMemory.rss),
        unit: 'MiB',
        baseline: { name: zeroName, value: mib(zeroMemory.rss) },
      },
      { group: 'daemon memory', name: zeroName, value: mib(zeroMemory.rss), unit: 'MiB' },
      {
        group: 'daemon memory',
        name: `tuttid VmRSS per connector (${TOOLS} tools), above the 0-connector daemon`,
        value: perConnectorKiB,
        unit: 'KiB',
      },
      {
        group: 'daemon memory',
        name: `tuttid peak VmHWM, ${RSS_CONNECTORS} connectors (during start)`,
        value: mib(fullMemory.hwm),
        unit: 'MiB',
      },
      {
        group: 'daemon memory',
        name: `${fullMemory.upstreams} upstream fixture servers (separate processes), PSS total`,
        value: mib(fullMemory.upstreamPss),
        unit: 'MiB',
      },
      {
        group: 'daemon memory',
        name: `${fullMemory.upstreams} upstream fixture servers, VmRSS sum (shared pages counted per process)`,
        value: mib(fullMemory.upstreamRss),
        unit: 'MiB',
      },
      {
        group: 'daemon memory',
        name: `${fullMemory.helpers} other tuttid child process(es) (supervisor reaper), PSS`,
        value: mib(fullMemory.helperPss),
        unit: 'MiB',
      },
    ];
  } finally {
    await dir.remove();
  }
}
