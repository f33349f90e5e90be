/** The shapes a bench hands the harness (`run.ts`): rows, target checks and charts. */

/** One measured figure; with a baseline the report shows `value / baseline.value`. */
export interface Row {
  readonly group: string;
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: { readonly name: string; readonly value: number } | undefined;
}

/** A goal checked on the figures, printed in the Targets table. */
export interface Target {
  readonly client: string;
  readonly target: string;
  readonly measured: number;
  readonly unit: string;
  readonly goal: string;
  readonly met: boolean;
}

/** A latency chart written as `bench/out/<id>.svg`: one bar group per series. */
export interface Chart {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly series: readonly { readonly name: string; readonly values: Record<string, number> }[];
}

/** What a bench returns: its rows, or rows with targets and charts. */
export type BenchResult =
  | Row[]
  | { rows: Row[]; targets?: Target[] | undefined; charts?: Chart[] | undefined };

/** Options of {@link BenchContext.measure}. */
export interface MeasureOptions {
  warmup?: number;
  samples?: number;
  minMs?: number;
  batch?: number;
}

/** What the harness gives every bench. */
export interface BenchContext {
  /** Median milliseconds of one call of `fn` (see bench/README.md). */
  measure(fn: () => unknown, options?: MeasureOptions): Promise<number>;
  /** A full garbage collection when Node runs with `--expose-gc`. */
  gc(): void;
}

/** The default export of a `<name>.bench.ts` module. */
export type Bench = (ctx: BenchContext) => Promise<BenchResult>;
