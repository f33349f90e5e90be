/**
 * A bounded ring of the last bytes a child process wrote to stderr: kept for crash
 * diagnostics (exit info, debug logs), never logged raw at info level.
 */

/** Default number of stderr bytes kept per process. */
export const DEFAULT_STDERR_TAIL_BYTES = 16 * 1024;

/** The most recent output of one process, at most a fixed number of bytes. */
export interface StderrTail {
  /** Appends a chunk, dropping the oldest bytes beyond the bound. */
  push(chunk: Buffer | string): void;
  /** The kept bytes as UTF-8 text (a split multi-byte character at the start is replaced). */
  text(): string;
  /** Number of bytes kept. */
  readonly size: number;
}

/**
 * A tail that keeps at most `maxBytes` of the most recent output.
 * @example const tail = createStderrTail(); child.stderr.on('data', (chunk) => tail.push(chunk));
 */
export function createStderrTail(maxBytes: number = DEFAULT_STDERR_TAIL_BYTES): StderrTail {
  const bound = Math.max(1, maxBytes);
  let chunks: Buffer[] = [];
  let size = 0;
  return {
    push(chunk) {
      let buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (buffer.length >= bound) {
        buffer = buffer.subarray(buffer.length - bound);
        chunks = [];
        size = 0;
      }
      chunks.push(buffer);
      size += buffer.length;
      while (size > bound) {
        const first = chunks[0]!;
        const excess = size - bound;
        if (first.length <= excess) {
          chunks.shift();
          size -= first.length;
        } else {
          chunks[0] = first.subarray(excess);
          size -= excess;
        }
      }
    },
    text: () => Buffer.concat(chunks, size).toString('utf8'),
    get size() {
      return size;
    },
  };
}
