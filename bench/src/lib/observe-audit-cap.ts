/**
 * Part 2 of the `observe` bench: the audit log under a small cap over 100,000 calls. One
 * `connector` server child (in-process echo, the call recorder with tracing off and an
 * audit log of at most 4 files of 1 MiB; `--expose-gc` and the heap probe,
 * `daemon-heap-probe.ts`) answers 100,000 calls at 16 in flight. At 10,000 and 100,000
 * calls: the audit flushed, a settle, VmRSS (`/proc`), then the heap after a full gc.
 * At the end the folder is read back: its bytes and files against the cap, and every
 * record's `seq` (strictly increasing from the oldest file to the current one, no gap: the
 * files hold exactly the newest records, the last one being the last call's).
 * `BENCH_QUICK=1`: marks at 2,000 and 20,000.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectRawHttp } from '../clients/raw-http.js';
import type { Row, Target } from '../types.js';
import type { BenchObserverStats } from './bench-observer.js';
import { HEAP_PROBE_NODE_ARGS, heapAfterGc } from './daemon-heap.js';
import { procStatusKiB } from './daemon-process.js';
import { QUICK, throughput } from './measure-calls.js';
import { startConnector } from './targets.js';

/** The audit log's cap here: 4 files of 1 MiB (the defaults are 8 of 8 MiB). */
const CAP = Object.freeze({ maxFileBytes: 1024 * 1024, maxFiles: 4 });
const MARKS = QUICK ? [2_000, 20_000] : [10_000, 100_000];
const SETTLE_MS = QUICK ? 500 : 2000;
/** Goal: memory at the last mark at most this times the first mark's. */
const MEMORY_GOAL = 1.1;

/** The server's memory once `calls` were answered (MiB). */
interface Mark {
  readonly calls: number;
  readonly vmRss: number;
  readonly heapUsed: number;
}

/** What the audit folder holds at the end. */
interface Folder {
  readonly bytes: number;
  readonly files: number;
  readonly records: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** Records whose seq is not above the one before (across files, oldest first). */
  readonly outOfOrder: number;
}

const mib = (bytes: number) => bytes / 1024 / 1024;
const count = (calls: number) => calls.toLocaleString('en-US');

/** Reads the audit folder, oldest file first (`audit-<first seq>.jsonl`, then `audit.jsonl`). */
async function readFolder(dir: string): Promise<Folder> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
  const archived = names.filter((name) => name !== 'audit.jsonl').sort();
  const ordered = names.includes('audit.jsonl') ? [...archived, 'audit.jsonl'] : archived;
  let bytes = 0;
  let records = 0;
  let outOfOrder = 0;
  let firstSeq = Number.NaN;
  let lastSeq = 0;
  for (const name of ordered) {
    bytes += (await stat(join(dir, name))).size;
    for (const line of (await readFile(join(dir, name), 'utf8')).split('\n')) {
      if (line === '') continue;
      const { seq } = JSON.parse(line) as { seq: number };
      if (records === 0) firstSeq = seq;
      else if (seq <= lastSeq) outOfOrder += 1;
      lastSeq = seq;
      records += 1;
    }
  }
  return { bytes, files: ordered.length, records, firstSeq, lastSeq, outOfOrder };
}

/** Rows and targets of the marks and the folder. */
function report(
  marks: readonly Mark[],
  folder: Folder,
  stats: BenchObserverStats,
): { rows: Row[]; targets: Target[] } {
  const group = `observe: audit capped at ${CAP.maxFiles} x ${mib(CAP.maxFileBytes)} MiB, ${count(MARKS[MARKS.length - 1]!)} calls`;
  const cap = CAP.maxFiles * CAP.maxFileBytes;
  const contiguous = folder.lastSeq - folder.firstSeq + 1;
  const rows: Row[] = [
    {
      group,
      name: 'audit folder bytes',
      value: folder.bytes,
      unit: 'B',
      baseline: { name: 'maxFiles x maxFileBytes', value: cap },
    },
    {
      group,
      name: 'audit files',
      value: folder.files,
      unit: 'files',
      baseline: { name: 'maxFiles', value: CAP.maxFiles },
    },
    {
      group,
      name: 'records in the files',
      value: folder.records,
      unit: 'records',
      baseline: { name: 'newest seq - oldest seq + 1', value: contiguous },
    },
    { group, name: 'newest seq', value: folder.lastSeq, unit: 'seq' },
    { group, name: 'records written (writer stats)', value: stats.auditWritten, unit: 'records' },
    { group, name: 'records dropped (writer stats)', value: stats.auditDropped, unit: 'records' },
    { group, name: 'seq not above the one before', value: folder.outOfOrder, unit: 'records' },
  ];
  const first = marks[0]!;
  const last = marks[marks.length - 1]!;
  const targets: Target[] = [
    {
      client: 'audit, capped',
      target: 'audit folder bytes',
      measured: mib(folder.bytes),
      unit: 'MiB',
      goal: `<= ${CAP.maxFiles} x ${mib(CAP.maxFileBytes)} MiB`,
      met: folder.bytes <= cap && folder.files <= CAP.maxFiles,
    },
    {
      client: 'audit, capped',
      target: 'records in the files: the newest, each once, the last call last',
      measured: folder.records,
      unit: 'records',
      goal: `= ${count(contiguous)}, seq increasing, newest ${count(last.calls)}`,
      met:
        folder.records === contiguous &&
        folder.outOfOrder === 0 &&
        folder.lastSeq === last.calls &&
        stats.auditDropped === 0,
    },
  ];
  for (const [label, field] of [
    ['VmRSS', 'vmRss'],
    ['heap used after a full gc', 'heapUsed'],
  ] as const) {
    const baseline = { name: `${label} at ${count(first.calls)} calls`, value: first[field] };
    for (const mark of marks) {
      rows.push({
        group,
        name: `${label} at ${count(mark.calls)} calls`,
        value: mark[field],
        unit: 'MiB',
        ...(mark !== first && { baseline }),
      });
    }
    const ratio = last[field] / first[field];
    targets.push({
      client: 'audit, capped',
      target: `${label} at ${count(last.calls)} calls / at ${count(first.calls)}`,
      measured: ratio,
      unit: 'x',
      goal: `<= ${MEMORY_GOAL}x`,
      met: ratio <= MEMORY_GOAL,
    });
  }
  return { rows, targets };
}

/** Runs part 2 in `dir` (its audit folder and the heap probe's file go there). */
export async function measureAuditCap(dir: string): Promise<{ rows: Row[]; targets: Target[] }> {
  const auditDir = join(dir, 'audit');
  const heapFile = join(dir, 'heap.json');
  const server = await startConnector({
    upstream: 'inprocess',
    observer: { audit: { dir: auditDir, ...CAP } },
    nodeArgs: HEAP_PROBE_NODE_ARGS,
    env: { TUTTI_BENCH_HEAP_FILE: heapFile },
  });
  const client = await connectRawHttp(server);
  try {
    let n = 0;
    const call = async () => {
      n += 1;
      const message = `call ${n}`;
      const result = await client.call(server.tool, { message });
      if (result?.content?.[0]?.text !== `Echo: ${message}`) {
        throw new Error(`observe: unexpected tools/call result ${JSON.stringify(result)}`);
      }
    };
    const marks: Mark[] = [];
    let done = 0;
    for (const target of MARKS) {
      const chunk = await throughput(call, { inFlight: 16, calls: target - done, maxMs: 900_000 });
      if (chunk.calls !== target - done) {
        throw new Error(`observe: ${chunk.calls} of ${target - done} calls ran`);
      }
      done = target;
      await server.ask('flush');
      await sleep(SETTLE_MS);
      const vmRssKiB = procStatusKiB(server.pid, 'VmRSS') ?? Number.NaN;
      const heap = await heapAfterGc(server.pid, heapFile);
      marks.push({ calls: done, vmRss: vmRssKiB / 1024, heapUsed: mib(heap.heapUsed) });
      console.error(
        `observe: audit capped, ${count(done)} calls: VmRSS ${(vmRssKiB / 1024).toFixed(1)} MiB, heap used after gc ${mib(heap.heapUsed).toFixed(1)} MiB, ${((chunk.calls / chunk.ms) * 1000).toFixed(0)} calls/s`,
      );
    }
    const stats = await server.ask<BenchObserverStats>('stats');
    return report(marks, await readFolder(auditDir), stats);
  } finally {
    await client.close();
    await server.stop();
  }
}
