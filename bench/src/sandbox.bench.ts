/**
 * Isolation of connector stdio servers (issue 31, docs/sandbox.md): what running a server
 * under bubblewrap costs against the same server run as before. Two in-process daemons
 * (the test kit's `startTestDaemon`), one with `sandbox: 'required'` and one with `'off'`,
 * give their `ConnectorSandbox`; a server is started the way the runtime starts it
 * (`sandbox.prepare(connector, credentialEnv)`, then `openStdioUpstream` with the prepared
 * launch on the daemon's supervisor, its temp folder released once it is gone). The server
 * is the test kit's dependency-free `echo` release, copied so its `server.mjs` lies inside
 * the release (a sandbox gives a server only its release, state and temp folders and the
 * system folders).
 *
 * In one run: (1) one server's start, prepare + spawn to initialize and tools/list done,
 * p50 of 15 each, interleaved; (2) `tools/call echo` p50 through a started server, 2,000
 * each after a warm-up, in interleaved chunks; (3) 50 connectors' cold start: a daemon
 * started on a home holding 50 installed releases, to its settled point (every connector
 * ready), sandboxed against not, interleaved. Targets: start within +50 ms, calls within
 * +0.05 ms. `BENCH_QUICK=1`: fewer rounds.
 */

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@tutti/core/internal';
import { descendantsOf } from '@tutti/test-kit/proc-tree';
import {
  closeDaemons,
  startTestDaemon,
  type TestDaemon,
} from '@tutti/test-kit/reliability/in-process-daemon';
import { benchDir } from './lib/daemon-home.js';
import {
  callSamples,
  echo,
  type Installed,
  startServer,
  TOOLS,
  type Upstream,
  writeEchoReleases,
} from './lib/sandbox-servers.js';
import { cpuMs as procCpuMs } from './lib/daemon-process.js';
import { QUICK, summarize } from './lib/measure-calls.js';
import type { BenchContext, BenchResult, Row, Target } from './types.js';

type Mode = 'required' | 'off';
type Daemon = TestDaemon['daemon'];

const PLAN = Object.freeze(
  QUICK
    ? { starts: 5, warmCalls: 200, chunks: 2, chunkCalls: 250, cold: 1, connectors: 50 }
    : { starts: 15, warmCalls: 500, chunks: 4, chunkCalls: 500, cold: 3, connectors: 50 },
);
const GOAL = Object.freeze({ startMs: 50, callMs: 0.05 });
const LABEL: Record<Mode, string> = { required: 'sandboxed', off: 'unsandboxed' };

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Median of the per-round differences `a[i] - b[i]` (rounds ran back to back). */
function pairedAdded(a: readonly number[], b: readonly number[]): number {
  return median(a.map((value, i) => value - b[i]!));
}

/**
 * CPU ms of this process and of the children it reaped so far; with the CPU of every live
 * descendant added (bwrap, the servers under it), what a start cost the machine.
 */
const ownCpuMs = () => procCpuMs('self', true);
const liveDescendantsCpuMs = () =>
  descendantsOf(process.pid).reduce((sum, pid) => sum + procCpuMs(pid, true), 0);

/** Milliseconds from spawning `command args` (env and cwd as given) to its exit with 0. */
async function runOnce(
  daemon: Daemon,
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  files?: readonly string[],
) {
  const t0 = performance.now();
  // The daemon's supervisor, as for a server: it hands `files` (the seccomp program) on.
  const proc = await daemon.supervisor.spawn({ command, args, env, ...(files && { files }) });
  const exit = await proc.exited;
  const ms = performance.now() - t0;
  if (exit.code !== 0) throw new Error(`${command} exited ${exit.code}: ${exit.stderrTail}`);
  return ms;
}

/**
 * The sandbox's own start cost without the server's: the launch `sandbox.prepare` gives
 * (bwrap with the server's mounts, then prlimit) running /usr/bin/true instead of the
 * server, and /usr/bin/true spawned alone.
 */
async function wrapperFloor(daemon: Daemon, connector: Installed, rounds: number) {
  const server = await daemon.sandbox.prepare(connector, {});
  try {
    const { command, args, env, files } = server.launch;
    const end = args.lastIndexOf('--');
    if (end < 0) throw new Error('the sandboxed launch has no -- before its command');
    const wrapped = [...args.slice(0, end + 1), '/usr/bin/true'];
    const ms = { wrapped: [] as number[], bare: [] as number[] };
    for (let round = -1; round < rounds; round += 1) {
      const w = await runOnce(daemon, command, wrapped, { ...env }, files);
      const b = await runOnce(daemon, '/usr/bin/true', [], { ...env });
      if (round < 0) continue;
      ms.wrapped.push(w);
      ms.bare.push(b);
    }
    return {
      wrapped: median(ms.wrapped),
      bare: median(ms.bare),
      added: pairedAdded(ms.wrapped, ms.bare),
    };
  } finally {
    await server.release();
  }
}

/**
 * A daemon started on a home holding `releases` (installed through the store first), timed
 * from the start to its settled point; every connector must be ready with its tools.
 */
async function coldStart(mode: Mode, releases: readonly string[], parent: string) {
  const home = join(parent, `home-${mode}`);
  await rm(home, { recursive: true, force: true });
  const store = await openStore(home);
  for (const dir of releases) await store.install(dir);
  const cpu0 = ownCpuMs();
  const t0 = performance.now();
  const test = await startTestDaemon({ home, sandbox: mode });
  try {
    const statuses = await test.daemon.settled;
    const ms = performance.now() - t0;
    const cpuMs = ownCpuMs() - cpu0 + liveDescendantsCpuMs();
    const bad = statuses.filter((s) => s.state !== 'ready' || s.toolCount !== TOOLS);
    if (statuses.length !== releases.length || bad.length > 0) {
      const warned = test.logLines.filter((line) => /"level":(40|50)/.test(line)).slice(0, 3);
      throw new Error(
        `${mode}: ${statuses.length}/${releases.length} settled, not ready: ${bad.map((s) => `${s.key} ${s.state}`).join(', ')}; ${warned.join(' ')}`,
      );
    }
    return { ms, cpuMs };
  } finally {
    await test.stop();
    await rm(home, { recursive: true, force: true });
  }
}

/** The sandbox bench. */
export default async function sandboxBench(ctx: BenchContext): Promise<BenchResult> {
  const dir = await benchDir('tutti-bench-sandbox-');
  const open: Upstream[] = [];
  try {
    const releases = await writeEchoReleases(join(dir.dir, 'releases'), PLAN.connectors);
    const daemons = {} as Record<Mode, Daemon>;
    const connectors = {} as Record<Mode, Installed>;
    for (const mode of ['required', 'off'] as const) {
      const home = join(dir.dir, `single-${mode}`);
      await mkdir(home);
      const { daemon } = await startTestDaemon({ home, sandbox: mode });
      daemons[mode] = daemon;
      connectors[mode] = await daemon.store.install(releases[0]!);
    }
    const isolated = daemons.required.sandbox;
    if (isolated.platform === undefined) {
      throw new Error(`sandbox: servers cannot be isolated here: ${isolated.unavailable}`);
    }

    // (1) One server's start: a warm-up of each, then interleaved, the order alternating.
    const startMs: Record<Mode, number[]> = { required: [], off: [] };
    const prepareMs: Record<Mode, number[]> = { required: [], off: [] };
    for (let round = -1; round < PLAN.starts; round += 1) {
      const order: Mode[] = round % 2 === 0 ? ['required', 'off'] : ['off', 'required'];
      for (const mode of order) {
        const started = await startServer(daemons[mode], connectors[mode]);
        await started.upstream.close();
        if (round < 0) continue;
        startMs[mode].push(started.startMs);
        prepareMs[mode].push(started.prepareMs);
      }
    }

    // What the wrapper alone costs a start: bwrap + prlimit around /usr/bin/true.
    const floor = await wrapperFloor(daemons.required, connectors.required, PLAN.starts);

    // (2) tools/call through one started server of each, in interleaved chunks.
    const upstreams = {} as Record<Mode, Upstream>;
    for (const mode of ['required', 'off'] as const) {
      upstreams[mode] = (await startServer(daemons[mode], connectors[mode])).upstream;
      open.push(upstreams[mode]);
      for (let i = 0; i < PLAN.warmCalls; i += 1) await echo(upstreams[mode]);
    }
    const callMs: Record<Mode, number[]> = { required: [], off: [] };
    for (let chunk = 0; chunk < PLAN.chunks; chunk += 1) {
      const order: Mode[] = chunk % 2 === 0 ? ['required', 'off'] : ['off', 'required'];
      for (const mode of order) {
        ctx.gc();
        await callSamples(upstreams[mode], PLAN.chunkCalls, callMs[mode]);
      }
    }
    for (const upstream of open.splice(0)) await upstream.close();
    await closeDaemons();

    // (3) 50 connectors' cold start, interleaved.
    const coldMs: Record<Mode, number[]> = { required: [], off: [] };
    const coldCpuMs: Record<Mode, number[]> = { required: [], off: [] };
    for (let round = 0; round < PLAN.cold; round += 1) {
      const order: Mode[] = round % 2 === 0 ? ['off', 'required'] : ['required', 'off'];
      for (const mode of order) {
        const cold = await coldStart(mode, releases, dir.dir);
        coldMs[mode].push(cold.ms);
        coldCpuMs[mode].push(cold.cpuMs);
      }
    }

    return report({ startMs, prepareMs, floor, callMs, coldMs, coldCpuMs });
  } finally {
    for (const upstream of open) await upstream.close().catch(() => undefined);
    await closeDaemons();
    await dir.remove();
  }
}

interface Measured {
  readonly startMs: Record<Mode, number[]>;
  readonly prepareMs: Record<Mode, number[]>;
  readonly floor: { readonly wrapped: number; readonly bare: number; readonly added: number };
  readonly callMs: Record<Mode, number[]>;
  readonly coldMs: Record<Mode, number[]>;
  readonly coldCpuMs: Record<Mode, number[]>;
}

function report(m: Measured): BenchResult {
  const start = { required: median(m.startMs.required), off: median(m.startMs.off) };
  const prepare = { required: median(m.prepareMs.required), off: median(m.prepareMs.off) };
  const calls = { required: summarize(m.callMs.required), off: summarize(m.callMs.off) };
  const cold = { required: median(m.coldMs.required), off: median(m.coldMs.off) };
  const coldCpu = { required: median(m.coldCpuMs.required), off: median(m.coldCpuMs.off) };
  const n = (mode: Mode) => m.startMs[mode].length;
  const c = (mode: Mode) => calls[mode].n;
  const k = (mode: Mode) => m.coldMs[mode].length;
  const group = 'sandbox (bubblewrap)';
  const pair = (
    name: (mode: Mode) => string,
    values: Record<Mode, number>,
    unit: string,
  ): Row[] => [
    {
      group,
      name: name('required'),
      value: values.required,
      unit,
      baseline: { name: name('off'), value: values.off },
    },
    { group, name: name('off'), value: values.off, unit },
  ];
  const rows: Row[] = [
    ...pair(
      (mode) =>
        `echo server start, ${LABEL[mode]}: prepare + spawn to initialize and tools/list done (p50 of ${n(mode)})`,
      start,
      'ms',
    ),
    ...pair((mode) => `of which sandbox.prepare, ${LABEL[mode]} (p50)`, prepare, 'ms'),
    {
      group,
      name: `floor: the sandboxed launch (bwrap, its mounts, prlimit) running /usr/bin/true (p50 of ${n('required')})`,
      value: m.floor.wrapped,
      unit: 'ms',
      baseline: { name: '/usr/bin/true spawned alone', value: m.floor.bare },
    },
    { group, name: '/usr/bin/true spawned alone', value: m.floor.bare, unit: 'ms' },
    {
      group,
      name: 'added by the sandbox to the server start: median of the per-round differences',
      value: pairedAdded(m.startMs.required, m.startMs.off),
      unit: 'ms',
    },
    {
      group,
      name: 'added by the sandbox to /usr/bin/true: median of the per-round differences',
      value: m.floor.added,
      unit: 'ms',
    },
    ...pair(
      (mode) => `tools/call echo, ${LABEL[mode]}, p50 of ${c(mode)}`,
      { required: calls.required.p50, off: calls.off.p50 },
      'ms',
    ),
    ...pair(
      (mode) => `tools/call echo, ${LABEL[mode]}, p99 of ${c(mode)}`,
      { required: calls.required.p99, off: calls.off.p99 },
      'ms',
    ),
    ...pair(
      (mode) =>
        `${PLAN.connectors} echo connectors, ${LABEL[mode]}: daemon start to all ready (median of ${k(mode)})`,
      cold,
      'ms',
    ),
    ...pair(
      (mode) =>
        `${PLAN.connectors} echo connectors, ${LABEL[mode]}: CPU of the daemon and every server until all ready (median of ${k(mode)})`,
      coldCpu,
      'ms',
    ),
  ];
  const startAdded = start.required - start.off;
  const callAdded = calls.required.p50 - calls.off.p50;
  const targets: Target[] = [
    {
      client: 'in-process',
      target: 'server start added by the sandbox (p50 - p50)',
      measured: startAdded,
      unit: 'ms',
      goal: `<= ${GOAL.startMs} ms`,
      met: startAdded <= GOAL.startMs,
    },
    {
      client: 'in-process',
      target: 'tools/call added by the sandbox (p50 - p50)',
      measured: callAdded,
      unit: 'ms',
      goal: `<= ${GOAL.callMs} ms`,
      met: callAdded <= GOAL.callMs,
    },
  ];
  console.error(
    `sandbox: wrapper floor ${m.floor.wrapped.toFixed(1)} vs ${m.floor.bare.toFixed(1)} ms; cold CPU ${m.coldCpuMs.required.map((v) => v.toFixed(0)).join('/')} vs ${m.coldCpuMs.off.map((v) => v.toFixed(0)).join('/')} ms`,
  );
  console.error(
    `sandbox: start ${start.required.toFixed(1)} vs ${start.off.toFixed(1)} ms; call p50 ${calls.required.p50.toFixed(3)} vs ${calls.off.p50.toFixed(3)} ms; ${PLAN.connectors} cold ${cold.required.toFixed(0)} vs ${cold.off.toFixed(0)} ms (${m.coldMs.required.map((v) => v.toFixed(0)).join('/')} vs ${m.coldMs.off.map((v) => v.toFixed(0)).join('/')})`,
  );
  return { rows, targets };
}
