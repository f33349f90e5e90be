/**
 * The load of the upgrade bench: `inFlight` workers calling one echo tool back to back
 * through the `connector` server, each answer checked (a thrown JSON-RPC or HTTP error, an
 * isError result, or text that is not the exact echo of the call's own arguments counts
 * as failed). Calls are attributed to the phase they started in; phases are named and a
 * name may recur, so baseline chunks can be interleaved with the upgrades in one run.
 */
import type { Connection, ToolResult } from '../clients/connection.js';
import { type Summary, summarize } from './measure-calls.js';

/** Calls of the load that started while one phase ran. */
export interface Phase {
  readonly name: string;
  readonly samples: number[];
  failed: number;
  readonly startedAt: number;
  endedAt: number | undefined;
}

/** Calls, failures, rate and latency of one or more phases. */
export interface PhaseStats {
  readonly calls: number;
  readonly failed: number;
  readonly ms: number;
  readonly callsPerSec: number;
  readonly latency: Summary;
}

/** How many failure reasons are kept for the report (the count is always exact). */
const KEPT_REASONS = 10;

/** Why `result` is not the echo of `expected` (JSON text), or undefined when it is. */
function echoProblem(result: ToolResult | undefined, expected: string): string | undefined {
  if (result?.isError) return `isError result: ${JSON.stringify(result.content).slice(0, 200)}`;
  const text = result?.content?.[0]?.text;
  if (text !== expected) return `wrong echo: ${String(text).slice(0, 200)}`;
  return undefined;
}

function newPhase(name: string): Phase {
  return { name, samples: [], failed: 0, startedAt: performance.now(), endedAt: undefined };
}

/**
 * Starts the load: `client.call(tool, args)` (the raw HTTP client) from `inFlight` workers,
 * in phase `first`. Returns `{ phase(name), stop(graceMs, onHang) }`.
 */
export function startLoad(
  client: Connection,
  tool: string,
  { inFlight = 16, first = 'warm-up' } = {},
) {
  let current = newPhase(first);
  const phases = [current];
  const reasons: string[] = [];
  let stopping = false;
  let seq = 0;

  async function worker(index: number): Promise<void> {
    while (!stopping) {
      seq += 1;
      const args = { worker: index, n: seq };
      const expected = JSON.stringify(args);
      const phase = current;
      const t0 = performance.now();
      let problem: string | undefined;
      try {
        problem = echoProblem(await client.call(tool, args), expected);
      } catch (error) {
        problem = (error as Error).message;
      }
      if (problem === undefined) {
        phase.samples.push(performance.now() - t0);
      } else {
        phase.failed += 1;
        if (reasons.length < KEPT_REASONS) reasons.push(`${phase.name}: ${problem}`);
      }
    }
  }
  const workers = Promise.all(Array.from({ length: inFlight }, (_, i) => worker(i)));

  function endCurrent() {
    current.endedAt = performance.now();
  }

  return {
    /** Ends the current phase and attributes calls started from now on to `name`. */
    phase(name: string): void {
      endCurrent();
      current = newPhase(name);
      phases.push(current);
    },
    /**
     * Stops starting calls and waits for those in flight; after `graceMs`, calls `onHang()`
     * (which should make them fail, e.g. by closing the client) and waits again. Resolves
     * to `{ phases, reasons }` (phases in order, each with its `name`); pass them to
     * {@link phaseStats}.
     */
    async stop(
      graceMs: number,
      onHang: () => Promise<unknown>,
    ): Promise<{ phases: Phase[]; reasons: string[] }> {
      endCurrent();
      stopping = true;
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<boolean>((resolve) => {
        timer = setTimeout(resolve, graceMs, false);
      });
      const finished = await Promise.race([workers.then(() => true), graceOver]);
      clearTimeout(timer);
      if (!finished) {
        await onHang();
        await workers;
      }
      return { phases, reasons };
    },
  };
}

/**
 * Calls, failures, calls/s and latency percentiles (ms) of one or more phases taken
 * together (e.g. the baseline before and after the upgrades).
 */
export function phaseStats(...phases: Phase[]): PhaseStats {
  const ms = phases.reduce(
    (sum, phase) => sum + ((phase.endedAt ?? performance.now()) - phase.startedAt),
    0,
  );
  const samples = phases.flatMap((phase) => phase.samples);
  const failed = phases.reduce((sum, phase) => sum + phase.failed, 0);
  const calls = samples.length + failed;
  return {
    calls,
    failed,
    ms,
    callsPerSec: ms > 0 ? (calls / ms) * 1000 : Number.NaN,
    latency: summarize(samples),
  };
}
