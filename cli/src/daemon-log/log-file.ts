/**
 * The daemon's log file, `<home>/logs/tuttid.log`: JSON lines appended synchronously (as
 * pino's own stderr destination writes), rotated by size like logrotate does it. When a
 * line would take the file past `maxBytes`, `tuttid.log.N-1` becomes `tuttid.log.N` ...,
 * `tuttid.log` becomes `tuttid.log.1` (the oldest beyond `maxFiles` is overwritten) and a
 * new `tuttid.log` is opened. The folder is 0700 and every file 0600. Synchronous on
 * purpose: the last lines before `process.exit` (a stop's `stopped`) are never lost.
 */
import {
  closeSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  chmodSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** Largest `tuttid.log` before it is rotated: 10 MiB. */
export const DEFAULT_LOG_FILE_BYTES = 10 * 1024 * 1024;
/** Rotated files kept beside `tuttid.log` (`tuttid.log.1` newest ... `.5` oldest). */
export const DEFAULT_LOG_FILES = 5;

/** Options of {@link openLogFile}. */
export interface LogFileOptions {
  /** The file (its folder is created 0700). */
  readonly path: string;
  /** Largest size of the file before it is rotated (default {@link DEFAULT_LOG_FILE_BYTES}). */
  readonly maxBytes?: number;
  /** Rotated files kept (default {@link DEFAULT_LOG_FILES}; 0 keeps none). */
  readonly maxFiles?: number;
  /** Told once when the file cannot be written; nothing more is written to it then. */
  readonly onError?: (error: NodeJS.ErrnoException) => void;
}

/** A log file that takes whole lines. */
export interface LogFile {
  /** Appends `line` (ending with a newline), rotating first when it would not fit. */
  write(line: string): void;
  close(): void;
}

/**
 * Opens (or creates) the log file; the folder and file are made on the first line.
 * @example const file = openLogFile({ path: join(home, 'logs', 'tuttid.log') }); file.write('{}\n');
 */
export function openLogFile(options: LogFileOptions): LogFile {
  const { path } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_LOG_FILE_BYTES;
  const maxFiles = options.maxFiles ?? DEFAULT_LOG_FILES;
  let fd: number | undefined;
  let size = 0;
  let broken = false;

  const open = () => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    chmodSync(dirname(path), 0o700);
    fd = openSync(path, 'a', 0o600);
    // A file left by an older daemon or made by hand is made private too.
    fchmodSync(fd, 0o600);
    size = fstatSync(fd).size;
  };
  const close = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  const rotate = () => {
    close();
    if (maxFiles === 0) unlinkSync(path);
    for (let n = maxFiles - 1; n >= 1; n--) renameIfThere(`${path}.${n}`, `${path}.${n + 1}`);
    if (maxFiles > 0) renameSync(path, `${path}.1`);
    open();
  };

  return {
    write(line) {
      if (broken) return;
      try {
        if (fd === undefined) open();
        const bytes = Buffer.byteLength(line);
        if (size > 0 && size + bytes > maxBytes) rotate();
        size += writeSync(fd!, line);
      } catch (error) {
        broken = true;
        try {
          close();
        } catch {
          // Already reported below; the daemon goes on without its file.
        }
        options.onError?.(error as NodeJS.ErrnoException);
      }
    },
    close() {
      if (!broken) close();
    },
  };
}

function renameIfThere(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
