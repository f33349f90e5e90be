/**
 * Preload (`node --expose-gc --import`) of the memory bench's `tuttid`, no product code: on
 * SIGUSR2 it runs a full garbage collection and writes `process.memoryUsage()` (bytes) as
 * one JSON line to `$TUTTI_BENCH_HEAP_FILE`, so the bench reads the daemon's live heap.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.TUTTI_BENCH_HEAP_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    const collected = typeof globalThis.gc === 'function';
    globalThis.gc?.();
    writeFileSync(file, `${JSON.stringify({ collected, ...process.memoryUsage() })}\n`);
  });
}
