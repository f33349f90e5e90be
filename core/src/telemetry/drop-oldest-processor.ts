/**
 * A batch span processor that never blocks a call and drops the OLDEST spans when its
 * queue is full (the SDK's BatchSpanProcessor drops the newest, so a collector that is down
 * would leave the start of an outage and lose the end). Spans are exported in batches every
 * `delayMs`, or as soon as a batch is full; one export runs at a time.
 */
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';

/** Options of {@link createDropOldestProcessor}. */
export interface DropOldestOptions {
  /** Most spans waiting to be exported (default 2,048). */
  readonly maxQueue?: number;
  /** Most spans in one export request (default 512). */
  readonly maxBatch?: number;
  /** Longest a span waits before it is exported, in ms (default 1,000). */
  readonly delayMs?: number;
  /** Told how many spans were dropped, when an export fails or the queue overflows. */
  readonly onDropped?: (count: number, why: string) => void;
}

/** A span processor over `exporter`. */
export function createDropOldestProcessor(
  exporter: SpanExporter,
  options: DropOldestOptions = {},
): SpanProcessor {
  const maxQueue = options.maxQueue ?? 2048;
  const maxBatch = Math.min(options.maxBatch ?? 512, maxQueue);
  const delayMs = options.delayMs ?? 1000;
  const queue: ReadableSpan[] = [];
  let timer: NodeJS.Timeout | undefined;
  let exporting: Promise<void> | undefined;
  let closed = false;

  const exportBatch = (batch: ReadableSpan[]): Promise<void> =>
    new Promise((resolve) => {
      exporter.export(batch, (result) => {
        if (result.code !== 0)
          options.onDropped?.(batch.length, result.error?.message ?? 'export failed');
        resolve();
      });
    });

  /** Exports batches until the queue is empty; one export runs at a time. */
  const drain = (): Promise<void> => {
    exporting ??= (async () => {
      while (queue.length > 0) await exportBatch(queue.splice(0, maxBatch));
    })().finally(() => {
      exporting = undefined;
    });
    return exporting;
  };

  const schedule = () => {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      void drain();
    }, delayMs);
    timer.unref();
  };

  return {
    onStart() {},
    onEnd(span) {
      if (closed || (span.spanContext().traceFlags & 1) === 0) return;
      queue.push(span);
      if (queue.length > maxQueue) {
        const over = queue.length - maxQueue;
        queue.splice(0, over);
        options.onDropped?.(over, 'the export queue was full');
      }
      if (queue.length >= maxBatch) void drain();
      else schedule();
    },
    forceFlush: drain,
    async shutdown() {
      if (closed) return;
      await drain();
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await exporter.shutdown();
    },
  };
}
