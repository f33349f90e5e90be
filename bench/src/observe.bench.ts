/**
 * What the daemon's call recorder (audit trail and tracing) costs on `tools/call`, side by
 * side in one run (lib/observe-cpu.ts): the `connector` server over the in-process echo
 * without an observer (the baseline), with the recorder and tracing off (what `tuttid`
 * runs by default), and with tracing to a loopback OTLP receiver (the test kit's, in its
 * own process: its CPU is counted apart). Goals: server CPU per call at most 1.05x the
 * baseline's, p50 of sequential calls at most 0.02 ms above it. `BENCH_QUICK=1`: 2 short
 * rounds.
 */
import { measureObserveCpu, type ObserveVariant } from './lib/observe-cpu.js';
import { startOtlpReceiverProcess } from './lib/otlp-receiver-process.js';
import type { BenchContext, BenchResult } from './types.js';

const VARIANTS: readonly ObserveVariant[] = [
  { name: 'no observer', traced: false },
  { name: 'recorder, both off', observer: () => ({}), traced: false },
  {
    name: 'tracing',
    observer: (receiver) => ({ otlpTracesUrl: receiver.tracesUrl }),
    traced: true,
  },
];

/** The observe bench. */
export default async function observeBench(ctx: BenchContext): Promise<BenchResult> {
  const receiver = await startOtlpReceiverProcess();
  try {
    return await measureObserveCpu(VARIANTS, receiver, ctx.gc);
  } finally {
    await receiver.stop();
  }
}
