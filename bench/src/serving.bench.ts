/**
 * Time to serve, on real `tuttid` processes and real stdio upstreams: from the spawn of
 * `tuttid` until every healthy connector's tools are served (each connector's `started`
 * log line, written when its tools are committed to the registry). (1) 49 fast connectors
 * and one that never answers `initialize`, against the same 49 without it (goal: within
 * 1.2x: the hung one holds up nothing); (2) 50 fast connectors against 50 bare fixture
 * servers spawned at once without a daemon (goal: within 1.2x), and against the same 50
 * servers each initialized and listed by a bare JSON-RPC client (the protocol work any host
 * has them do, without the daemon's own). Rounds interleave the cases. `BENCH_QUICK=1`
 * runs one round.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { SILENT_SERVER, UPSTREAM_FIXTURES, writeRelease } from '@tutti/test-kit';
import { benchDir, homeWithReleases, writeStdioReleases } from './lib/daemon-home.js';
import { cpuMs, descendants, TUTTID } from './lib/daemon-process.js';
import { type FloorRun, parallelFixtureStart } from './lib/daemon-upstream-floor.js';
import { spawnGroup } from './lib/processes.js';
import type { BenchResult } from './types.js';

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

/** Fixture servers live in the kit's fixtures/upstream; the watchdog runs from `node -e`. */
function isFixtureServer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(UPSTREAM_FIXTURES);
  } catch {
    return false;
  }
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
function writeHungRelease(parent: string): Promise<string> {
  return writeRelease({
    key: 'hung',
    name: 'Hung',
    description: 'A server that never answers initialize.',
    command: process.execPath,
    script: SILENT_SERVER,
    serverArgs: [],
    parent,
  });
}

/** One timed start: wall time, and the CPU of the daemon and of its upstreams until then. */
interface ServeRun extends FloorRun {
  readonly daemonCpuMs: number;
}

/**
 * Spawns `tuttid --json --sandbox off --log-level info` on a fresh home holding `releases`
 * and resolves with the milliseconds from the spawn until each of `healthy` logged
 * `started`, and the CPU used until then; stops it (and anything it left) before resolving.
 */
async function timeToServe(
  releases: readonly string[],
  healthy: readonly string[],
): Promise<ServeRun> {
  const home = await homeWithReleases(releases);
  const waiting = new Set(healthy);
  const started = performance.now();
  const group = spawnGroup(
    process.execPath,
    // --sandbox off: the fixture servers run from the test kit's folder, which a sandbox
    // does not give them (docs/sandbox.md).
    [TUTTID, '--home', home.home, '--json', '--no-demo', '--sandbox', 'off', '--log-level', 'info'],
    { graceMs: 15_000 },
  );
  const { child } = group;
  const upstreams = new Set<number>();
  try {
    return await new Promise<ServeRun>((resolve, reject) => {
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
            const ms = performance.now() - started;
            // The fixture servers only: the daemon's reaper watchdog is its own child too.
            const upstreamCpu = descendants(group.pid)
              .filter(isFixtureServer)
              .reduce((sum, pid) => sum + cpuMs(pid), 0);
            resolve({ ms, daemonCpuMs: cpuMs(group.pid), cpuMs: upstreamCpu });
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
    const fiftyRuns: ServeRun[] = [];
    const floorRuns: FloorRun[] = [];
    const listedRuns: FloorRun[] = [];
    for (let round = 0; round < rounds; round += 1) {
      withHung.push((await timeToServe([...fortyNine, hung], healthy)).ms);
      withoutHung.push((await timeToServe(fortyNine, healthy)).ms);
      fiftyRuns.push(await timeToServe(fast, keys));
      floorRuns.push(await parallelFixtureStart(CONNECTORS, TOOLS - FIXTURE_BUILTIN_TOOLS));
      listedRuns.push(
        await parallelFixtureStart(CONNECTORS, TOOLS - FIXTURE_BUILTIN_TOOLS, { listed: true }),
      );
    }
    const fifty = fiftyRuns.map((run) => run.ms);
    const floor = floorRuns.map((run) => run.ms);
    const listedFloor = listedRuns.map((run) => run.ms);
    const hungMs = median(withHung);
    const cleanMs = median(withoutHung);
    const fiftyMs = median(fifty);
    const floorMs = median(floor);
    const listedMs = median(listedFloor);
    const list = (values: readonly number[]) => values.map((v) => v.toFixed(0)).join(', ');
    console.error(
      `serving: 49 + hung ${list(withHung)} ms; 49 alone ${list(withoutHung)} ms; 50 ${list(fifty)} ms; 50 bare ${list(floor)} ms; 50 bare and listed ${list(listedFloor)} ms`,
    );
    // CPU until served: on 2 cores the wall time cannot be below half the CPU all used.
    const cpu = (runs: readonly FloorRun[]) => list(runs.map((run) => run.cpuMs));
    console.error(
      `serving CPU: 50 via the daemon: daemon ${list(fiftyRuns.map((run) => run.daemonCpuMs))} ms, its upstreams ${cpu(fiftyRuns)} ms; 50 bare ${cpu(floorRuns)} ms; 50 bare and listed ${cpu(listedRuns)} ms`,
    );
    const of = `median of ${rounds}`;
    const cleanName = `49 fast connectors alone, spawn to all tools served (${of})`;
    const floorName = `floor: ${CONNECTORS} fixture servers spawned at once, no daemon, to their ready line (${of})`;
    const listedName = `${CONNECTORS} fixture servers spawned at once, each initialized and listed by a bare client, no daemon (${of})`;
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
        {
          group: 'time to serve',
          name: `${CONNECTORS} fast connectors served by the daemon, against the same servers listed without it (${of})`,
          value: fiftyMs,
          unit: 'ms',
          baseline: { name: listedName, value: listedMs },
        },
        { group: 'time to serve', name: listedName, value: listedMs, unit: 'ms' },
        {
          group: 'time to serve',
          name: `CPU until served: ${CONNECTORS} connectors through the daemon, daemon and upstreams (${of})`,
          value: median(fiftyRuns.map((run) => run.daemonCpuMs + run.cpuMs)),
          unit: 'ms CPU',
          baseline: {
            name: `CPU of the ${CONNECTORS} servers listed without a daemon (${of})`,
            value: median(listedRuns.map((run) => run.cpuMs)),
          },
        },
        {
          group: 'time to serve',
          name: `CPU until served: the daemon itself (${of})`,
          value: median(fiftyRuns.map((run) => run.daemonCpuMs)),
          unit: 'ms CPU',
        },
        {
          group: 'time to serve',
          name: `CPU of the ${CONNECTORS} bare servers to their ready line (${of})`,
          value: median(floorRuns.map((run) => run.cpuMs)),
          unit: 'ms CPU',
        },
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
