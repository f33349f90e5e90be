/**
 * Time to serve, on real `tuttid` processes and real stdio upstreams: from the spawn of
 * `tuttid` until every healthy connector's tools are served (each connector's `started`
 * log line, written when its tools are committed to the registry). (1) 49 fast connectors
 * and one that never answers `initialize`, against the same 49 without it (goal: within
 * 1.2x: the hung one holds up nothing); (2) 50 fast connectors against 50 bare fixture
 * servers spawned at once without a daemon (goal: within 1.2x). Rounds interleave the
 * cases. `BENCH_QUICK=1` runs one round.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchDir, homeWithReleases, writeStdioReleases } from './lib/daemon-home.js';
import { descendants, TUTTID } from './lib/daemon-process.js';
import { parallelFixtureStartMs } from './lib/daemon-upstream-floor.js';
import { REPO } from './lib/paths.js';
import { spawnGroup } from './lib/processes.js';
import type { BenchResult } from './types.js';

/** The upstream that never answers initialize (and ignores SIGTERM). */
const SILENT_SERVER = `${REPO}test/fixtures/upstream/silent-server.mjs`;
/** Tools every fixture server has besides its generated `tool_<n>` ones. */
const FIXTURE_BUILTIN_TOOLS = 8;
const TOOLS = 50;
const CONNECTORS = 50;
/** Longest one start may take before the bench gives up on it. */
const SERVE_TIMEOUT_MS = 120_000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A release whose server never answers `initialize`, with the default start timeout. */
async function writeHungRelease(parent: string): Promise<string> {
  const dir = join(parent, 'hung');
  await mkdir(dir, { recursive: true });
  const manifest = {
    key: 'hung',
    name: 'Hung',
    description: 'A server that never answers initialize.',
    version: '1.0.0',
    mcp: { command: process.execPath, args: [SILENT_SERVER] },
  };
  await writeFile(join(dir, 'tutti-connector.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

/**
 * Spawns `tuttid --json --log-level info` on a fresh home holding `releases` and resolves
 * with the milliseconds from the spawn until each of `healthy` logged `started`; stops
 * it (and anything it left) before resolving.
 */
async function timeToServe(releases: readonly string[], healthy: readonly string[]) {
  const home = await homeWithReleases(releases);
  const waiting = new Set(healthy);
  const started = performance.now();
  const group = spawnGroup(
    process.execPath,
    [TUTTID, '--home', home.home, '--json', '--no-demo', '--log-level', 'info'],
    { graceMs: 15_000 },
  );
  const { child } = group;
  const upstreams = new Set<number>();
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `not served after ${SERVE_TIMEOUT_MS} ms; waiting for ${[...waiting].join(', ')}: ${group.stderrTail()}`,
            ),
          ),
        SERVE_TIMEOUT_MS,
      );
      let buffer = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          let entry: { event?: string; connector?: string };
          try {
            entry = JSON.parse(line) as typeof entry;
          } catch {
            continue;
          }
          if (entry.event !== 'started' || !waiting.delete(entry.connector ?? '')) continue;
          if (waiting.size === 0) {
            clearTimeout(timer);
            resolve(performance.now() - started);
          }
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(`tuttid exited (${signal ?? code}) before serving: ${group.stderrTail()}`),
        );
      });
    });
  } finally {
    // The upstreams lead groups of their own: the daemon stops them, and any it left is
    // killed here, so no round starts beside the last one's processes.
    for (const pid of descendants(group.pid)) upstreams.add(pid);
    await group.stop();
    for (const pid of upstreams) {
      for (let i = 0; i < 100 && alive(pid); i += 1) await sleep(20);
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    await home.remove();
  }
}

export default async function servingBench(): Promise<BenchResult> {
  const rounds = process.env.BENCH_QUICK === '1' ? 1 : 3;
  const dir = await benchDir('tutti-bench-serving-');
  try {
    const fast = await writeStdioReleases(dir.dir, CONNECTORS, TOOLS - FIXTURE_BUILTIN_TOOLS);
    const keys = fast.map((release) => release.split('/').at(-1)!);
    const hung = await writeHungRelease(dir.dir);
    const fortyNine = fast.slice(0, CONNECTORS - 1);
    const healthy = keys.slice(0, CONNECTORS - 1);

    // Warm-up: the file cache holds tuttid, its imports and the fixture server afterwards.
    await timeToServe(fast.slice(0, 1), keys.slice(0, 1));

    const withHung: number[] = [];
    const withoutHung: number[] = [];
    const fifty: number[] = [];
    const floor: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      withHung.push(await timeToServe([...fortyNine, hung], healthy));
      withoutHung.push(await timeToServe(fortyNine, healthy));
      fifty.push(await timeToServe(fast, keys));
      floor.push(await parallelFixtureStartMs(CONNECTORS, TOOLS - FIXTURE_BUILTIN_TOOLS));
    }
    const hungMs = median(withHung);
    const cleanMs = median(withoutHung);
    const fiftyMs = median(fifty);
    const floorMs = median(floor);
    const list = (values: readonly number[]) => values.map((v) => v.toFixed(0)).join(', ');
    console.error(
      `serving: 49 + hung ${list(withHung)} ms; 49 alone ${list(withoutHung)} ms; 50 ${list(fifty)} ms; 50 bare ${list(floor)} ms`,
    );
    const of = `median of ${rounds}`;
    const cleanName = `49 fast connectors alone, spawn to all tools served (${of})`;
    const floorName = `floor: ${CONNECTORS} fixture servers spawned at once, no daemon, to their ready line (${of})`;
    return {
      rows: [
        {
          group: 'time to serve',
          name: `49 fast connectors + 1 that never answers initialize, spawn to the 49 served (${of})`,
          value: hungMs,
          unit: 'ms',
          baseline: { name: cleanName, value: cleanMs },
        },
        { group: 'time to serve', name: cleanName, value: cleanMs, unit: 'ms' },
        {
          group: 'time to serve',
          name: `${CONNECTORS} fast connectors x ${TOOLS} tools, spawn to all tools served (${of})`,
          value: fiftyMs,
          unit: 'ms',
          baseline: { name: floorName, value: floorMs },
        },
        { group: 'time to serve', name: floorName, value: floorMs, unit: 'ms' },
      ],
      targets: [
        {
          client: 'tuttid',
          target: 'a hung connector beside 49 fast ones',
          measured: hungMs / cleanMs,
          unit: 'x',
          goal: '<= 1.2x the 49 alone',
          met: hungMs / cleanMs <= 1.2,
        },
        {
          client: 'tuttid',
          target: '50 fast connectors served',
          measured: fiftyMs / floorMs,
          unit: 'x',
          goal: '<= 1.2x 50 bare servers',
          met: fiftyMs / floorMs <= 1.2,
        },
      ],
    };
  } finally {
    await dir.remove();
  }
}
