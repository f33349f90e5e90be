/**
 * The audit folder's files: the current one, `audit.jsonl`, and the rotated ones,
 * `audit-<seq of its first record, 16 digits>.jsonl`, whose names sort by age. A line that
 * is not a record (a torn write after a crash, anything else) is skipped by every reader.
 */
import type { FileHandle } from 'node:fs/promises';
import { open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditRecord } from './types.js';

/** The file records are appended to. */
export const CURRENT_FILE = 'audit.jsonl';

const ARCHIVED = /^audit-(\d{1,16})\.jsonl$/;
const SEQ_DIGITS = 16;
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** The name a current file whose first record is `firstSeq` gets when it is rotated. */
export function archiveName(firstSeq: number): string {
  return `audit-${String(firstSeq).padStart(SEQ_DIGITS, '0')}.jsonl`;
}

/** A rotated file and the seq of its first record (every record in it has at least that seq). */
export interface ArchivedFile {
  readonly name: string;
  readonly firstSeq: number;
}

/** The rotated files in `dir`, newest first. */
export async function listArchived(dir: string): Promise<ArchivedFile[]> {
  const files: ArchivedFile[] = [];
  for (const name of await readdir(dir)) {
    const match = ARCHIVED.exec(name);
    if (match) files.push({ name, firstSeq: Number(match[1]) });
  }
  return files.sort((a, b) => b.firstSeq - a.firstSeq);
}

/**
 * Deletes the oldest rotated files so that at most `keep` are left; each failure goes to
 * `report` (a file that is already gone is not one).
 */
export async function pruneArchived(
  dir: string,
  keep: number,
  report: (error: unknown) => void,
): Promise<void> {
  for (const file of (await listArchived(dir)).slice(Math.max(0, keep))) {
    await rm(join(dir, file.name), { force: true }).catch(report);
  }
}

/** The record a line holds, or undefined when it holds none (torn, foreign, empty). */
export function parseAuditLine(line: string): AuditRecord | undefined {
  if (line.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Partial<AuditRecord>;
    return Number.isSafeInteger(record.seq) && typeof record.time === 'string'
      ? (value as AuditRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The lines of the first `size` bytes of an open file, last first, read in chunks from the
 * end: a reader that stops early reads only the tail. A last line without its "\n" is
 * yielded too (it parses only if it is whole).
 */
export async function* linesFromEnd(handle: FileHandle, size: number): AsyncGenerator<string> {
  let end = size;
  let carry: Buffer = Buffer.alloc(0);
  while (end > 0) {
    const start = Math.max(0, end - CHUNK_BYTES);
    const chunk = await readAt(handle, start, end - start);
    const buffer = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
    let stop = buffer.length;
    let newline = stop > 0 ? buffer.lastIndexOf(NEWLINE, stop - 1) : -1;
    while (newline !== -1) {
      if (newline + 1 < stop) yield buffer.toString('utf8', newline + 1, stop);
      stop = newline;
      newline = stop > 0 ? buffer.lastIndexOf(NEWLINE, stop - 1) : -1;
    }
    carry = buffer.subarray(0, stop);
    end = start;
  }
  if (carry.length > 0) yield carry.toString('utf8');
}

/** The seq of the last record of the file at `path` (undefined when it has none, or is gone). */
export async function lastSeqIn(path: string): Promise<number | undefined> {
  const handle = await openIfPresent(path);
  if (!handle) return undefined;
  try {
    for await (const line of linesFromEnd(handle, (await handle.stat()).size)) {
      const record = parseAuditLine(line);
      if (record) return record.seq;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/** What a writer needs to know of the current file before it appends to it. */
export interface FileStart {
  /** The seq of its first record (undefined when it holds none). */
  readonly firstSeq: number | undefined;
  /** True when it is empty or ends in "\n"; false after a torn write. */
  readonly endsInNewline: boolean;
}

/** Reads the start and the last byte of the file at `path`, `size` bytes long. */
export async function readFileStart(path: string, size: number): Promise<FileStart> {
  if (size === 0) return { firstSeq: undefined, endsInNewline: true };
  const handle = await open(path, 'r');
  try {
    const last = await readAt(handle, size - 1, 1);
    return { firstSeq: await firstSeqOf(handle, size), endsInNewline: last[0] === NEWLINE };
  } finally {
    await handle.close();
  }
}

/** The first record's seq: from the first chunk, or the whole file when that holds none. */
async function firstSeqOf(handle: FileHandle, size: number): Promise<number | undefined> {
  let bytes = Math.min(size, CHUNK_BYTES);
  for (;;) {
    const lines = (await readAt(handle, 0, bytes)).toString('utf8').split('\n');
    // Unless the whole file was read, the last piece may be a line cut by the chunk's end.
    if (bytes < size) lines.pop();
    for (const line of lines) {
      const record = parseAuditLine(line);
      if (record) return record.seq;
    }
    if (bytes >= size) return undefined;
    bytes = size;
  }
}

/** `length` bytes of an open file from `position` (fewer if the file is shorter). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/** `path` opened for reading, or undefined when there is no such file. */
export async function openIfPresent(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
