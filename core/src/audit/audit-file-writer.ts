/**
 * Appends lines to the current audit file through one FileHandle (opened 'a', 0600) and
 * rotates it: a file is renamed before a write would take it past `maxFileBytes`, so each
 * file holds at most that much (a single record larger than that gets a file of its own),
 * and the oldest rotated files are deleted so at most `maxFiles` are kept. The caller
 * serializes `write`s: there is never more than one in flight.
 */
import type { FileHandle } from 'node:fs/promises';
import { chmod, mkdir, open, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { archiveName, CURRENT_FILE, pruneArchived, readFileStart } from './audit-files.js';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const NEWLINE = Buffer.from('\n');

/** One record's line, its "\n" included. */
export interface AuditLine {
  readonly seq: number;
  readonly bytes: Buffer;
}

/** How many lines of a `write` reached the file, and the error that stopped the rest. */
export interface WriteOutcome {
  readonly written: number;
  readonly error?: Error;
}

/** Options of `createAuditFileWriter`. */
export interface AuditFileWriterOptions {
  readonly dir: string;
  readonly maxFileBytes: number;
  readonly maxFiles: number;
  /**
   * Told about what does not stop a write: an old file that could not be deleted, a current
   * file that vanished.
   */
  readonly report: (error: unknown) => void;
}

/** The writer of one audit folder's current file. */
export interface AuditFileWriter {
  /** Appends `lines` in order; a failure stops it (nothing is tried again). Never rejects. */
  write(lines: readonly AuditLine[]): Promise<WriteOutcome>;
  /** Closes the file handle; a later `write` opens it again. */
  close(): Promise<void>;
}

interface OpenFile {
  readonly handle: FileHandle;
  readonly dev: number;
  readonly ino: number;
  size: number;
  /** The seq its rotated name will carry; set by the first record written when it had none. */
  firstSeq: number | undefined;
  /** The file does not end in "\n" (a torn write): the next write starts with one. */
  torn: boolean;
}

/**
 * A writer of the current file of `options.dir` (the folder exists; the file is opened on
 * the first write).
 */
export function createAuditFileWriter(options: AuditFileWriterOptions): AuditFileWriter {
  const { dir, maxFileBytes, maxFiles, report } = options;
  const path = join(dir, CURRENT_FILE);
  let file: OpenFile | undefined;

  const drop = async (): Promise<void> => {
    const handle = file?.handle;
    file = undefined;
    await handle?.close().catch(() => {});
  };

  /** The open current file; opened again when it was moved or removed behind our back. */
  const current = async (): Promise<OpenFile> => {
    if (file) {
      const onDisk = await stat(path).catch(() => undefined);
      if (onDisk && onDisk.ino === file.ino && onDisk.dev === file.dev) return file;
      report(new Error(`audit file ${path} was moved or removed; writing to a new one`));
      await drop();
    }
    // Not recursive: the folder is made again if it was removed, the home is not.
    await mkdir(dir, { mode: DIR_MODE }).then(
      () => chmod(dir, DIR_MODE),
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      },
    );
    const handle = await open(path, 'a', FILE_MODE);
    try {
      await handle.chmod(FILE_MODE);
      const { size, dev, ino } = await handle.stat();
      const start = await readFileStart(path, size);
      file = { handle, dev, ino, size, firstSeq: start.firstSeq, torn: !start.endsInNewline };
      return file;
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
  };

  const rotate = async (firstSeq: number): Promise<void> => {
    await drop();
    await rename(path, join(dir, archiveName(firstSeq)));
    // The current file counts as one of the `maxFiles`.
    await pruneArchived(dir, maxFiles - 1, report);
  };

  return {
    async write(lines) {
      let done = 0;
      try {
        while (done < lines.length) {
          const target = await current();
          const first = lines[done]!.bytes.length + (target.torn ? 1 : 0);
          // A file with no record yet takes one whatever its size, so it has a name to rotate to.
          if (target.firstSeq !== undefined && target.size + first > maxFileBytes) {
            await rotate(target.firstSeq);
            continue;
          }
          let end = done + 1;
          let bytes = first;
          while (
            end < lines.length &&
            target.size + bytes + lines[end]!.bytes.length <= maxFileBytes
          ) {
            bytes += lines[end]!.bytes.length;
            end += 1;
          }
          const parts = lines.slice(done, end).map((line) => line.bytes);
          if (target.torn) parts.unshift(NEWLINE);
          target.firstSeq ??= lines[done]!.seq;
          await writeAll(target.handle, Buffer.concat(parts, bytes));
          target.size += bytes;
          target.torn = false;
          done = end;
        }
        return { written: done };
      } catch (error) {
        // The file may now end in a torn line: the next write opens it again and checks.
        await drop();
        return { written: done, error: asError(error) };
      }
    },
    close: drop,
  };
}

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

/** `error` as an Error (a thrown non-Error is wrapped). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
