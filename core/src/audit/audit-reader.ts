/**
 * Answers an {@link AuditQuery} from the audit folder: newest first, from the current file
 * to older ones, each read backwards in chunks, stopping once the page is full or the
 * records are older than the query's `since` or not past its `after`. The files are opened
 * at one moment (while no write runs) and read through those handles, so a rotation during
 * the read neither hides nor repeats a record.
 */
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CURRENT_FILE,
  linesFromEnd,
  listArchived,
  openIfPresent,
  parseAuditLine,
} from './audit-files.js';
import type { AuditPage, AuditQuery, AuditRecord } from './types.js';

/** Records a page holds unless the query says otherwise. */
export const DEFAULT_AUDIT_LIMIT = 100;
/** Most records a page holds. */
export const MAX_AUDIT_LIMIT = 1000;
/**
 * How far before `since` the reader goes on. Records are appended as calls end, so file
 * order follows the end of a call (`time` + `durationMs`), not its arrival: a long call
 * that arrived before `since` may sit after a short one that arrived later. Once a record
 * ended this long before `since`, every older one arrived before it too.
 */
const SINCE_SLACK_MS = 60_000;

/** One file of a snapshot, newest first. */
interface SnapshotFile {
  readonly handle: FileHandle;
  /** Bytes it held when the snapshot was taken; a write since then is not read. */
  readonly size: number;
  /** The seq of its first record, for a rotated file (its name says it). */
  readonly firstSeq: number | undefined;
}

/** The audit files at one moment, open for reading. */
export interface AuditSnapshot {
  readonly files: readonly SnapshotFile[];
  /** Closes every handle. */
  close(): Promise<void>;
}

/** Opens every file of `dir`, newest first (call it while no write runs). */
export async function openAuditSnapshot(dir: string): Promise<AuditSnapshot> {
  const files: SnapshotFile[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(files.map((file) => file.handle.close().catch(() => {})));
  };
  try {
    const names = [
      { name: CURRENT_FILE, firstSeq: undefined },
      ...(await listArchived(dir).catch(() => [])),
    ];
    for (const { name, firstSeq } of names) {
      const handle = await openIfPresent(join(dir, name));
      if (handle) files.push({ handle, size: (await handle.stat()).size, firstSeq });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { files, close };
}

/** The page of `snapshot` that answers `query`. */
export async function readAuditPage(
  snapshot: AuditSnapshot,
  query: AuditQuery,
): Promise<AuditPage> {
  const limit = pageLimit(query.limit);
  // One record past the page says whether another page exists.
  const found: AuditRecord[] = [];
  for (const file of snapshot.files) {
    // Every record of a rotated file has at least its first seq.
    if (
      query.before !== undefined &&
      file.firstSeq !== undefined &&
      file.firstSeq >= query.before
    ) {
      continue;
    }
    for await (const line of linesFromEnd(file.handle, file.size)) {
      const record = parseAuditLine(line);
      if (!record) continue;
      if (pastTheEnd(record, query)) return page(found, limit);
      if (!matches(record, query)) continue;
      found.push(record);
      if (found.length > limit) return page(found, limit);
    }
  }
  return page(found, limit);
}

/** The page size `limit` asks for: default 100, between 1 and 1,000. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_AUDIT_LIMIT;
  return Math.min(MAX_AUDIT_LIMIT, Math.max(1, Math.floor(limit)));
}

/** True when `record` and everything older than it are outside the query. */
function pastTheEnd(record: AuditRecord, query: AuditQuery): boolean {
  if (query.after !== undefined && record.seq <= query.after) return true;
  if (query.since === undefined) return false;
  const ended = Date.parse(record.time) + (record.durationMs ?? 0);
  return ended < query.since - SINCE_SLACK_MS;
}

function matches(record: AuditRecord, query: AuditQuery): boolean {
  return (
    (query.before === undefined || record.seq < query.before) &&
    (query.since === undefined || Date.parse(record.time) >= query.since) &&
    (query.connector === undefined || record.connector === query.connector) &&
    (query.session === undefined || record.session === query.session) &&
    (query.outcome === undefined || record.outcome === query.outcome)
  );
}

function page(found: AuditRecord[], limit: number): AuditPage {
  if (found.length <= limit) return { records: found };
  const records = found.slice(0, limit);
  return { records, nextBefore: records[records.length - 1]!.seq };
}
