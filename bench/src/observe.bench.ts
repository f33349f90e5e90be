/**
 * What the daemon's call recorder (audit trail and tracing) costs on `tools/call`, side by
 * side in one run. Part 1 (lib/observe-cpu.ts): the `connector` server over the
 * in-process echo without an observer (the baseline), with the recorder and both off
 * (what `tuttid` runs by default), with the audit log, with tracing to a loopback OTLP
 * receiver (the test kit's, in its own process: its CPU is counted apart), and with both.
 * Goals: server CPU per call at most 1.05x the baseline's, p50 of sequential calls at most
 * 0.02 ms above it. Part 1b (lib/observe-in-process.ts): the same recorders alone in this
 * process, their CPU per call without a server's noise. Part 2 (lib/observe-audit-cap.ts): 100,000 calls through a server
 * whose audit log is capped at 4 files of 1 MiB: the folder within the cap, the newest
 * records each once, memory flat. `BENCH_QUICK=1`: 2 short rounds, 20,000 calls.
 */
import * as internal from '@tutti/core/internal';
import { benchDir } from './lib/daemon-home.js';
import { measureAuditCap } from './lib/observe-audit-cap.js';
import { measureObserveCpu } from './lib/observe-cpu.js';
import { measureRecorderAlone } from './lib/observe-in-process.js';
import type { ObserveVariant } from './lib/observe-cpu-report.js';
import { startOtlpReceiverProcess } from './lib/otlp-receiver-process.js';
import type { BenchContext, BenchResult } from './types.js';

const VARIANTS: readonly ObserveVariant[] = [
  { name: 'no observer', traced: false, audited: false },
  { name: 'no observer, again (A/A)', traced: false, audited: false, control: true },
  { name: 'recorder, both off', observer: () => ({}), traced: false, audited: false },
  {
    name: 'audit',
    observer: ({ dir }) => ({ audit: { dir } }),
    traced: false,
    audited: true,
  },
  {
    name: 'tracing',
    observer: ({ tracesUrl }) => ({ otlpTracesUrl: tracesUrl }),
    traced: true,
    audited: false,
  },
  {
    name: 'audit + tracing',
    observer: ({ dir, tracesUrl }) => ({ audit: { dir }, otlpTracesUrl: tracesUrl }),
    traced: true,
    audited: true,
  },
];

/** The observe bench. */
export default async function observeBench(ctx: BenchContext): Promise<BenchResult> {
  const dir = await benchDir('tutti-bench-observe-');
  const receiver = await startOtlpReceiverProcess();
  try {
    const cpu = await measureObserveCpu(VARIANTS, receiver, dir.dir, ctx.gc);
    const sinks = { tracesUrl: receiver.tracesUrl, dir: dir.dir };
    const alone = await measureRecorderAlone(internal, VARIANTS, sinks, cpu.baselineCpuUs, ctx.gc);
    const cap = await measureAuditCap(dir.dir);
    return {
      rows: [...cpu.rows, ...alone.rows, ...cap.rows],
      targets: [...cpu.targets, ...alone.targets, ...cap.targets],
    };
  } finally {
    await receiver.stop();
    await dir.remove();
  }
}
