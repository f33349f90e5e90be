import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { createDropOldestProcessor } from './drop-oldest-processor.js';

/** A stand-in span: the processor reads only its context's flags. */
function span(name: string, sampled = true): ReadableSpan {
  return {
    name,
    spanContext: () => ({
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      traceFlags: sampled ? 1 : 0,
    }),
  } as unknown as ReadableSpan;
}

/** An exporter that records batches and answers at once, as told. */
function exporter(answer: 0 | 1 = 0) {
  const batches: string[][] = [];
  let shutdowns = 0;
  const exported: SpanExporter = {
    export(spans, done) {
      batches.push(spans.map((one) => one.name));
      done({ code: answer });
    },
    async shutdown() {
      shutdowns += 1;
    },
  };
  return { exported, batches, shutdowns: () => shutdowns };
}

describe('the drop-oldest span processor', () => {
  it('keeps the newest spans when its queue overflows during a slow export, and says how many it dropped', async () => {
    const batches: string[][] = [];
    const held: (() => void)[] = [];
    const slow: SpanExporter = {
      export(spans, done) {
        batches.push(spans.map((one) => one.name));
        held.push(() => done({ code: 0 }));
      },
      async shutdown() {},
    };
    const dropped: number[] = [];
    const processor = createDropOldestProcessor(slow, {
      maxQueue: 3,
      maxBatch: 2,
      delayMs: 60_000,
      onDropped: (count) => dropped.push(count),
    });
    // a and b fill a batch, whose export hangs; c to f wait, and the queue holds three.
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) processor.onEnd(span(name));
    expect(batches).toEqual([['a', 'b']]);
    expect(dropped).toEqual([1]);
    const flushed = processor.forceFlush();
    while (batches.length < 3) {
      held.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    held.shift()?.();
    await flushed;
    expect(batches).toEqual([['a', 'b'], ['d', 'e'], ['f']]);
  });

  it('exports a full batch at once, the rest after its delay, and skips unsampled spans', async () => {
    const { exported, batches } = exporter();
    const processor = createDropOldestProcessor(exported, { maxBatch: 2, delayMs: 20 });
    processor.onEnd(span('unsampled', false));
    processor.onEnd(span('a'));
    processor.onEnd(span('b'));
    processor.onEnd(span('c'));
    await processor.forceFlush();
    expect(batches.flat()).toEqual(['a', 'b', 'c']);
    expect(batches[0]).toEqual(['a', 'b']);
    processor.onEnd(span('d'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(batches.flat()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('counts a failed export as dropped, and exports everything at shutdown once', async () => {
    const { exported, batches, shutdowns } = exporter(1);
    const dropped: number[] = [];
    const processor = createDropOldestProcessor(exported, {
      delayMs: 60_000,
      onDropped: (count) => dropped.push(count),
    });
    processor.onEnd(span('a'));
    await processor.shutdown();
    await processor.shutdown();
    processor.onEnd(span('late'));
    expect(batches).toEqual([['a']]);
    expect(dropped).toEqual([1]);
    expect(shutdowns()).toBe(1);
  });
});
