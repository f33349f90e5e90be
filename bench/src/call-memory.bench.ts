/**
 * Memory of a real `tuttid` serving `tools/call` to one stdio connector (the fixture
 * server, tool `echo`), after 1,000, 10,000 and 100,000 calls (16 in flight, raw HTTP
 * client through a session's `connector` server binding, every answer checked): its VmRSS
 * from `/proc` after a settle, then its heap after a full garbage collection (a bench
 * preload, `lib/daemon-heap-probe.ts`). Target: both at 100,000 calls within 10% of 1,000.
 * Also the daemon's CPU per call (from `/proc`) and calls/s of the last chunk.
 * With `BENCH_AB_CORE_DIST` the other build's daemon runs beside it, the two taking turns
 * in slices of 10,000 calls.
 * `BENCH_QUICK=1`: marks at 1,000 and 10,000.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestConnection } from './clients/connection.js';
import { connectRawHttp } from './clients/raw-http.js';
import { abBuilds, type Build } from './lib/ab-builds.js';
import { HEAP_PROBE_NODE_ARGS, heapAfterGc } from './lib/daemon-heap.js';
import { benchDir, writeStdioReleases } from './lib/daemon-home.js';
import { cpuMs, procStatusKiB, startTuttid, type Tuttid } from './lib/daemon-process.js';
import { QUICK, throughput } from './lib/measure-calls.js';
import { controlClient } from './lib/upgrade-control.js';
import type { BenchResult, Row, Target } from './types.js';

const MARKS = QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000];
const IN_FLIGHT = 16;
/** Calls one build runs before the other takes its turn. */
const SLICE = 10_000;
/** Wait after the last call of a mark before reading VmRSS (sockets, timers, log flushes). */
const SETTLE_MS = 2000;
/** Goal: memory at the last mark at most this times the first mark's. */
const LIMIT = 1.1;

/** The daemon's memory once `calls` calls were answered. */
interface Mark {
  readonly calls: number;
  readonly vmRssMiB: number;
  readonly heapUsedMiB: number;
  readonly rssAfterGcMiB: number;
  readonly callsPerSec: number;
  /** tuttid CPU (user + system, from `/proc`) per call of the chunk that led here. */
  readonly cpuPerCallUs: number;
}

const mib = (bytes: number) => bytes / 1024 / 1024;

/** One build's daemon with one connector installed, its client and its marks so far. */
interface Subject {
  readonly build: Build;
  readonly daemon: Tuttid;
  readonly heapFile: string;
  readonly client: RequestConnection;
  readonly call: () => Promise<void>;
  readonly marks: Mark[];
  done: number;
  cpuMs: number;
  ms: number;
}

/** Starts one build's daemon on a fresh home, installs the connector and connects a client. */
async function subjectOf(build: Build, index: number, dir: string): Promise<Subject> {
  const home = join(dir, `home-${index}`);
  await mkdir(home);
  const heapFile = join(dir, `heap-${index}.json`);
  const [release] = await writeStdioReleases(join(dir, `releases-${index}`), 1, 0);
  const daemon = await startTuttid(home, {
    bin: build.tuttid,
    nodeArgs: HEAP_PROBE_NODE_ARGS,
    env: { TUTTI_BENCH_HEAP_FILE: heapFile },
  });
  try {
    const api = await controlClient(home, daemon.ready);
    const installed = await api.install(release!, '1.0.0');
    if (!installed.ok) throw new Error(`call-memory: install failed: ${installed.problem}`);
    const client = await connectRawHttp(await api.binding(dir));
    let seq = 0;
    const call = async () => {
      seq += 1;
      const args = { n: seq };
      const result = await client.call('bench-000_echo', args);
      if (result?.isError || result?.content?.[0]?.text !== JSON.stringify(args)) {
        throw new Error(`call-memory: wrong answer ${JSON.stringify(result).slice(0, 200)}`);
      }
    };
    return { build, daemon, heapFile, client, call, marks: [], done: 0, cpuMs: 0, ms: 0 };
  } catch (error) {
    await daemon.stop();
    throw error;
  }
}

/** Runs `calls` more calls of `s` at 16 in flight, adding up its CPU and time. */
async function slice(s: Subject, calls: number): Promise<void> {
  const cpuBefore = cpuMs(s.daemon.pid);
  const chunk = await throughput(s.call, { inFlight: IN_FLIGHT, calls, maxMs: 900_000 });
  if (chunk.calls !== calls) throw new Error(`call-memory: ${chunk.calls} of ${calls} calls ran`);
  s.cpuMs += cpuMs(s.daemon.pid) - cpuBefore;
  s.ms += chunk.ms;
  s.done += calls;
}

/** Reads the memory of `s` after a settle; the CPU and time since the last mark go with it. */
async function mark(s: Subject): Promise<void> {
  const calls = s.done - (s.marks[s.marks.length - 1]?.calls ?? 0);
  await sleep(SETTLE_MS);
  const vmRssKiB = procStatusKiB(s.daemon.pid, 'VmRSS') ?? Number.NaN;
  const heap = await heapAfterGc(s.daemon.pid, s.heapFile);
  const m: Mark = {
    calls: s.done,
    vmRssMiB: vmRssKiB / 1024,
    heapUsedMiB: mib(heap.heapUsed),
    rssAfterGcMiB: mib(heap.rss),
    callsPerSec: (calls / s.ms) * 1000,
    cpuPerCallUs: (s.cpuMs * 1000) / calls,
  };
  s.cpuMs = 0;
  s.ms = 0;
  s.marks.push(m);
  console.error(
    `call-memory: ${s.build.name}, ${m.calls} calls: VmRSS ${m.vmRssMiB.toFixed(1)} MiB, heap used after gc ${m.heapUsedMiB.toFixed(1)} MiB (rss ${m.rssAfterGcMiB.toFixed(1)}), ${m.callsPerSec.toFixed(0)} calls/s, ${m.cpuPerCallUs.toFixed(0)} us CPU/call`,
  );
}

const count = (calls: number) => calls.toLocaleString('en-US');

/** Rows and targets of one build's marks. */
function report(build: Build, marks: readonly Mark[]): { rows: Row[]; targets: Target[] } {
  const first = marks[0]!;
  const last = marks[marks.length - 1]!;
  const group = 'tools/call memory, tuttid, stdio upstream';
  const rows: Row[] = [];
  const targets: Target[] = [];
  const figures = [
    ['VmRSS', 'vmRssMiB'],
    ['heap used after a full gc', 'heapUsedMiB'],
  ] as const;
  for (const [label, field] of figures) {
    const baseline = { name: `${label} at ${count(first.calls)} calls`, value: first[field] };
    for (const mark of marks) {
      rows.push({
        group,
        name: `${label} at ${count(mark.calls)} calls (${build.name})`,
        value: mark[field],
        unit: 'MiB',
        ...(mark !== first && { baseline }),
      });
    }
    const ratio = last[field] / first[field];
    targets.push({
      client: build.name,
      target: `${label} at ${count(last.calls)} calls / at ${count(first.calls)}`,
      measured: ratio,
      unit: 'x',
      goal: `<= ${LIMIT}x`,
      met: ratio <= LIMIT,
    });
  }
  const span = `calls ${count(marks[marks.length - 2]?.calls ?? 0)}-${count(last.calls)}`;
  rows.push(
    {
      group,
      name: `tuttid CPU/call, ${span} (${build.name})`,
      value: last.cpuPerCallUs,
      unit: 'us',
    },
    {
      group,
      name: `calls/s @${IN_FLIGHT}, ${span} (${build.name})`,
      value: last.callsPerSec,
      unit: 'calls/s',
    },
  );
  return { rows, targets };
}

/** The call-memory bench. */
export default async function callMemoryBench(): Promise<BenchResult> {
  const dir = await benchDir('tutti-bench-call-memory-');
  const subjects: Subject[] = [];
  try {
    for (const [index, build] of abBuilds().entries()) {
      subjects.push(await subjectOf(build, index, dir.dir));
    }
    // Slices of at most SLICE calls, the builds taking turns (the order flips each slice).
    let done = 0;
    let turn = 0;
    for (const target of MARKS) {
      while (done < target) {
        const calls = Math.min(SLICE, target - done);
        const order = turn % 2 === 0 ? subjects : [...subjects].reverse();
        for (const s of order) await slice(s, calls);
        done += calls;
        turn += 1;
      }
      for (const s of subjects) await mark(s);
    }
    const rows: Row[] = [];
    const targets: Target[] = [];
    for (const s of subjects) {
      const part = report(s.build, s.marks);
      rows.push(...part.rows);
      targets.push(...part.targets);
    }
    return { rows, targets };
  } finally {
    for (const s of subjects) {
      await s.client.close();
      await s.daemon.stop();
    }
    await dir.remove();
  }
}
