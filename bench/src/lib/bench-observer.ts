/**
 * The `tools/call` observer of the `connector` server child, when a bench asks for one
 * (`BENCH_OBSERVER`, JSON of {@link BenchObserverOptions}): the daemon's call recorder
 * (`createCallRecorder`) over the OpenTelemetry tracer exporting to an OTLP endpoint, or
 * over the pass-through tracer without one, with or without an audit log (`openAuditLog`).
 * The child answers the bench's `flush` (every span exported, every record written) and
 * `stats` (spans dropped, records written and dropped) with it.
 */
type Internal = typeof import('@tutti/core/internal');
type Observer = ReturnType<Internal['createCallRecorder']>;

/** What the bench asks the child to observe with. */
export interface BenchObserverOptions {
  /** The OTLP/HTTP traces URL; none: the pass-through tracer (nothing recorded). */
  readonly otlpTracesUrl?: string;
  /** The audit log's folder and caps (`AuditLogOptions`); none: no audit. */
  readonly audit?: {
    readonly dir: string;
    readonly maxFileBytes?: number;
    readonly maxFiles?: number;
  };
}

/** Counters of one observer since it opened. */
export interface BenchObserverStats {
  /** Spans the drop-oldest processor dropped (queue full or a failed export). */
  readonly spansDropped: number;
  /** Audit records written, and lost (queue overflow, failed writes). */
  readonly auditWritten: number;
  readonly auditDropped: number;
}

/** The child's observer and its handles. */
export interface BenchObserver {
  readonly observer: Observer;
  /** Exports every span ended so far and writes every record handed over. */
  flush(): Promise<void>;
  stats(): BenchObserverStats;
  close(): Promise<void>;
}

/** Reads `BENCH_OBSERVER`; undefined when the bench asked for no observer. */
export function benchObserverOptions(
  env: NodeJS.ProcessEnv = process.env,
): BenchObserverOptions | undefined {
  const text = env.BENCH_OBSERVER;
  return text ? (JSON.parse(text) as BenchObserverOptions) : undefined;
}

/** Opens the observer `options` describe, from `internal` (this build's or another's core). */
export async function openBenchObserver(
  internal: Internal,
  options: BenchObserverOptions,
): Promise<BenchObserver> {
  let spansDropped = 0;
  const tracer = await internal.openTracer(
    options.otlpTracesUrl ? { endpoint: options.otlpTracesUrl } : undefined,
    {
      serviceName: 'tutti-bench',
      serviceVersion: '0.0.0',
      onDropped: (count) => {
        spansDropped += count;
      },
    },
  );
  const audit = options.audit && (await internal.openAuditLog(options.audit));
  const observer = internal.createCallRecorder({
    tracer,
    ...(audit && { audit }),
    sessions: { providerOf: () => 'bench', toolCallParent: () => undefined },
  });
  return {
    observer,
    async flush() {
      await Promise.all([tracer.flush(), audit?.flush()]);
    },
    stats: () => ({
      spansDropped,
      auditWritten: audit?.stats.written ?? 0,
      auditDropped: audit?.stats.dropped ?? 0,
    }),
    async close() {
      await Promise.all([tracer.close(), audit?.close()]);
    },
  };
}
