/**
 * A bounded ring of the last bytes a child process wrote to stderr: kept for crash
 * diagnostics (exit info, debug logs), never logged raw at info level.
 */

/** Default number of stderr bytes kept per process. */
export const DEFAULT_STDERR_TAIL_BYTES = 16 * 1024;

/** Keeps at most `maxBytes` of the most recent output. */
export class StderrTail {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(maxBytes: number = DEFAULT_STDERR_TAIL_BYTES) {
    this.#maxBytes = Math.max(1, maxBytes);
  }

  /** Appends a chunk, dropping the oldest bytes beyond the bound. */
  push(chunk: Buffer | string): void {
    let buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (buffer.length >= this.#maxBytes) {
      buffer = buffer.subarray(buffer.length - this.#maxBytes);
      this.#chunks = [];
      this.#size = 0;
    }
    this.#chunks.push(buffer);
    this.#size += buffer.length;
    while (this.#size > this.#maxBytes) {
      const first = this.#chunks[0]!;
      const excess = this.#size - this.#maxBytes;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#size -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#size -= excess;
      }
    }
  }

  /** The kept bytes as UTF-8 text (a split multi-byte character at the start is replaced). */
  text(): string {
    return Buffer.concat(this.#chunks, this.#size).toString('utf8');
  }

  /** Number of bytes kept. */
  get size(): number {
    return this.#size;
  }
}
