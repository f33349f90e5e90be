/**
 * The memory bench's side of `daemon-heap-probe.ts`: the Node arguments that preload it
 * into a `tuttid`, and a read of that daemon's memory after a full garbage collection.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** Node arguments of a `tuttid` whose heap the bench reads (with `TUTTI_BENCH_HEAP_FILE` set). */
export const HEAP_PROBE_NODE_ARGS: readonly string[] = [
  '--expose-gc',
  '--import',
  new URL('./daemon-heap-probe.js', import.meta.url).href,
];

/** `process.memoryUsage()` of the daemon (bytes), read right after a full collection. */
export interface HeapReading {
  readonly collected: boolean;
  readonly rss: number;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

/** Asks the daemon `pid` (started with the probe writing to `file`) for a reading. */
export async function heapAfterGc(
  pid: number,
  file: string,
  timeoutMs = 10_000,
): Promise<HeapReading> {
  await writeFile(file, '');
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(file, 'utf8');
    if (text.endsWith('\n')) {
      const reading = JSON.parse(text) as HeapReading;
      if (!reading.collected) throw new Error('tuttid runs without --expose-gc: no heap reading');
      return reading;
    }
    if (Date.now() > deadline)
      throw new Error(`tuttid ${pid} wrote no heap reading in ${timeoutMs} ms`);
    await sleep(20);
  }
}
