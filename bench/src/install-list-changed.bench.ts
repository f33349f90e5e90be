/**
 * Install to list_changed: a real `tuttid`, one MCP client subscribed to its `connector`
 * server (`subscriptions/listen`, MCP 2026-07-28, through a session's binding), and
 * `POST /v1/connectors/install` of a stdio release (the fixture server, 50 tools) under a
 * new key each time; each figure is from the request until the client reads
 * `notifications/tools/list_changed`, both on this process's monotonic clock, beside the
 * install's answer time. The baseline is the same server's bare start and list (spawned,
 * `initialize`, `tools/list`; no daemon). With `BENCH_AB_CORE_DIST` the other build's
 * daemon takes its installs in the same rounds; the order rotates each round. The first
 * install of each daemon warms it up and is not counted. `BENCH_QUICK=1`: 3 rounds.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openListeners } from './clients/listen-streams.js';
import { abBuilds, type Build } from './lib/ab-builds.js';
import { benchDir, writeStdioReleases } from './lib/daemon-home.js';
import { startTuttid, type Tuttid } from './lib/daemon-process.js';
import { parallelFixtureStart } from './lib/daemon-upstream-floor.js';
import { QUICK } from './lib/measure-calls.js';
import { controlClient } from './lib/upgrade-control.js';
import type { Row } from './types.js';

const ROUNDS = QUICK ? 3 : 10;
/** Tools of each release besides the fixture's 8 built-in ones (50 in all, as `daemon`). */
const EXTRA_TOOLS = 42;
/** Longest wait for a list_changed frame after an install. */
const FRAME_TIMEOUT_MS = 30_000;
/** Pause after each install, so the connector's shims and catalog are written before the next. */
const PAUSE_MS = 300;

/** One build's daemon with its subscribed client and its figures. */
interface Subject {
  readonly build: Build;
  readonly daemon: Tuttid;
  readonly api: Awaited<ReturnType<typeof controlClient>>;
  readonly frames: bigint[];
  readonly listener: { close(): void };
  readonly listChangedMs: number[];
  readonly installMs: number[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Resolves to the first list_changed frame of `subject` stamped after `since`. */
async function frameAfter(subject: Subject, since: bigint): Promise<bigint> {
  const deadline = performance.now() + FRAME_TIMEOUT_MS;
  for (;;) {
    const at = subject.frames.find((frame) => frame > since);
    if (at !== undefined) return at;
    if (performance.now() > deadline) {
      throw new Error(`install-list-changed: ${subject.build.name}: no list_changed in time`);
    }
    await sleep(1);
  }
}

/** Installs `release` on `subject`; `count` adds the figures. */
async function install(subject: Subject, release: string, count: boolean): Promise<void> {
  const t0 = process.hrtime.bigint();
  const answer = subject.api.install(release, '1.0.0');
  const at = await frameAfter(subject, t0);
  const installed = await answer;
  if (!installed.ok) throw new Error(`install-list-changed: install failed: ${installed.problem}`);
  if (count) {
    subject.listChangedMs.push(Number(at - t0) / 1e6);
    subject.installMs.push(installed.ms);
  }
  await sleep(PAUSE_MS);
}

async function subjectOf(build: Build, index: number, dir: string): Promise<Subject> {
  const home = join(dir, `home-${index}`);
  await mkdir(home);
  const daemon = await startTuttid(home, { bin: build.tuttid });
  try {
    const api = await controlClient(home, daemon.ready);
    const frames: bigint[] = [];
    const listener = await openListeners(await api.binding(dir), 1, (_, at) => frames.push(at));
    return { build, daemon, api, frames, listener, listChangedMs: [], installMs: [] };
  } catch (error) {
    await daemon.stop();
    throw error;
  }
}

/** The install-list-changed bench. */
export default async function installListChangedBench(): Promise<Row[]> {
  const dir = await benchDir('tutti-bench-install-list-changed-');
  const subjects: Subject[] = [];
  try {
    const releases = await writeStdioReleases(join(dir.dir, 'releases'), ROUNDS + 1, EXTRA_TOOLS);
    for (const [index, build] of abBuilds().entries()) {
      subjects.push(await subjectOf(build, index, dir.dir));
    }
    for (const subject of subjects) await install(subject, releases[0]!, false);
    await parallelFixtureStart(1, EXTRA_TOOLS, { listed: true });
    const bareMs: number[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const steps: (() => Promise<void>)[] = [
        ...subjects.map((subject) => () => install(subject, releases[round]!, true)),
        async () => {
          bareMs.push((await parallelFixtureStart(1, EXTRA_TOOLS, { listed: true })).ms);
        },
      ];
      const shift = round % steps.length;
      for (const step of [...steps.slice(shift), ...steps.slice(0, shift)]) await step();
    }
    const group = 'install to list_changed, stdio connector (50 tools)';
    const bare = {
      name: `bare server start, initialize and tools/list (median of ${bareMs.length})`,
      value: median(bareMs),
    };
    const rows: Row[] = [];
    for (const s of subjects) {
      console.error(
        `install-list-changed: ${s.build.name}: list_changed ${s.listChangedMs.map((ms) => ms.toFixed(0)).join(' / ')} ms; install answer ${s.installMs.map((ms) => ms.toFixed(0)).join(' / ')} ms`,
      );
      const n = s.listChangedMs.length;
      rows.push(
        {
          group,
          name: `POST install to list_changed at the client, median of ${n} (${s.build.name})`,
          value: median(s.listChangedMs),
          unit: 'ms',
          baseline: bare,
        },
        {
          group,
          name: `POST install to its answer, median of ${n} (${s.build.name})`,
          value: median(s.installMs),
          unit: 'ms',
          baseline: bare,
        },
      );
    }
    console.error(`install-list-changed: bare ${bareMs.map((ms) => ms.toFixed(0)).join(' / ')} ms`);
    rows.push({ group, name: bare.name, value: bare.value, unit: 'ms' });
    return rows;
  } finally {
    for (const subject of subjects) {
      subject.listener.close();
      await subject.daemon.stop();
    }
    await dir.remove();
  }
}
