/**
 * `openAuditLog`: the audit log of one daemon (docs/audit.md). `append` runs on the
 * `tools/call` path, so all it does is push the entry on an in-memory queue (no
 * serializing, no hashing, no I/O). A timer writes what waits every `flushMs`, or sooner
 * when many records wait, in one batch: the batch gets its `seq`s, digests and captured
 * values there, off the call path. Writes, and the moment a query opens the files, run
 * one at a time, in order.
 *
 * Nothing is written twice: a write that fails is not tried again; its records are counted
 * as dropped and `onError` is told. A query first writes what waits, so its answer includes
 * every record appended before it.
 */
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { asError, type AuditLine, createAuditFileWriter } from './audit-file-writer.js';
import { CURRENT_FILE, lastSeqIn, listArchived, pruneArchived } from './audit-files.js';
import type { AuditEntry, AuditLog, AuditLogOptions } from './audit-log.js';
import { openAuditSnapshot, readAuditPage } from './audit-reader.js';
import { toAuditRecord, type ValueCapture } from './audit-record.js';
import { createDropOldestQueue } from './drop-oldest-queue.js';

/** The defaults of {@link AuditLogOptions}, and the queue length that writes early. */
export const AUDIT_DEFAULTS = Object.freeze({
  /** 8 MiB per file. */
  maxFileBytes: 8 * 1024 * 1024,
  /** 8 files, the current one included: at most 64 MiB on disk by default. */
  maxFiles: 8,
  /** A record waits at most 250 ms to be written. */
  flushMs: 250,
  /** At most 20,000 records wait; the oldest go first. */
  maxQueued: 20_000,
  /** With this many waiting, they are written without waiting for the timer. */
  flushBatch: 512,
});

/**
 * Opens the audit log in `options.dir` (made 0700 if needed), continuing the `seq` of the
 * records already there. Rejects only when the folder cannot be made or read.
 * @example const audit = await openAuditLog({ dir: join(home, 'audit'), redact: redactor.redact });
 */
export async function openAuditLog(options: AuditLogOptions): Promise<AuditLog> {
  const { dir } = options;
  const maxFileBytes = positive(options.maxFileBytes, AUDIT_DEFAULTS.maxFileBytes);
  const maxFiles = positive(options.maxFiles, AUDIT_DEFAULTS.maxFiles);
  const flushMs = Math.max(0, options.flushMs ?? AUDIT_DEFAULTS.flushMs);
  const capture: ValueCapture | undefined = options.captureValues
    ? { redact: options.redact ?? ((text) => text) }
    : undefined;
  const report = (error: unknown): void => {
    try {
      options.onError?.(asError(error));
    } catch {
      // A failing error handler must not stop the writer.
    }
  };

  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  // A lower `maxFiles` than last time takes effect at once.
  await pruneArchived(dir, maxFiles - 1, report);
  let lastSeq = await lastSeqOf(dir, report);

  const files = createAuditFileWriter({ dir, maxFileBytes, maxFiles, report });
  const queue = createDropOldestQueue<AuditEntry>(
    positive(options.maxQueued, AUDIT_DEFAULTS.maxQueued),
  );
  let written = 0;
  let dropped = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let early: NodeJS.Immediate | undefined;
  /** The last task of the serial chain (writes, snapshots); it never rejects. */
  let chain: Promise<unknown> = Promise.resolve();
  /** The write chained but not started yet: it takes everything waiting when it starts. */
  let pendingWrite: Promise<void> | undefined;

  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task);
    chain = run.catch(() => {});
    return run;
  };

  const writeWaiting = async (): Promise<void> => {
    pendingWrite = undefined;
    clearTimeout(timer);
    timer = undefined;
    const entries = queue.takeAll();
    if (entries.length === 0) return;
    const lines: AuditLine[] = [];
    for (const entry of entries) {
      try {
        const seq = lastSeq + 1;
        const text = `${JSON.stringify(toAuditRecord(entry, seq, capture))}\n`;
        lines.push({ seq, bytes: Buffer.from(text, 'utf8') });
        lastSeq = seq;
      } catch (error) {
        dropped += 1;
        report(error);
      }
    }
    const outcome = await files.write(lines);
    written += outcome.written;
    if (outcome.error) {
      dropped += lines.length - outcome.written;
      report(outcome.error);
    }
  };

  /** Everything waiting now, written after the write in flight (at most one write is). */
  const requestWrite = (): Promise<void> => {
    pendingWrite ??= serial(writeWaiting);
    return pendingWrite;
  };

  return {
    append(entry) {
      if (closed) {
        dropped += 1;
        return;
      }
      dropped += queue.push(entry);
      timer ??= setTimeout(requestWrite, flushMs).unref();
      if (queue.size >= AUDIT_DEFAULTS.flushBatch && !early && !pendingWrite) {
        early = setImmediate(() => {
          early = undefined;
          void requestWrite();
        }).unref();
      }
    },
    async query(query) {
      await requestWrite();
      const snapshot = await serial(() => openAuditSnapshot(dir));
      try {
        return await readAuditPage(snapshot, query);
      } finally {
        await snapshot.close();
      }
    },
    flush: requestWrite,
    close() {
      closing ??= (async () => {
        closed = true;
        clearImmediate(early);
        early = undefined;
        await requestWrite();
        await serial(() => files.close());
        clearTimeout(timer);
        timer = undefined;
      })();
      return closing;
    },
    get stats() {
      return { written, dropped };
    },
  };
}

/**
 * The seq of the newest record in `dir` (0 when there is none); a file it cannot read goes
 * to `report`.
 */
async function lastSeqOf(dir: string, report: (error: unknown) => void): Promise<number> {
  const names = [CURRENT_FILE, ...(await listArchived(dir)).map((file) => file.name)];
  for (const name of names) {
    const seq = await lastSeqIn(join(dir, name)).catch((error: unknown) => {
      report(error);
      return undefined;
    });
    if (seq !== undefined) return seq;
  }
  return 0;
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
}
