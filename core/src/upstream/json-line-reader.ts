/**
 * Splits a stdio MCP stream into parsed JSON lines, without validating them: the transport
 * decides per message whether it needs the SDK's schema check. Bounded like the SDK's
 * `ReadBuffer` (10 MB of pending bytes); lines that are not JSON are skipped, as there.
 */

/** Most bytes of one unfinished line kept before the stream is given up (the SDK's bound). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Collects chunks and yields each complete line's `JSON.parse` value. */
export class JsonLineReader {
  #pending: Buffer | undefined;
  readonly #maxBytes: number;

  constructor(maxBytes = MAX_LINE_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** Adds a chunk; throws (and forgets everything) when the unfinished bytes exceed the bound. */
  append(chunk: Buffer): void {
    const size = (this.#pending?.length ?? 0) + chunk.length;
    if (size > this.#maxBytes) {
      this.#pending = undefined;
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#maxBytes} bytes`);
    }
    this.#pending = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
  }

  /** The next complete line's parsed JSON, or undefined when no complete line is left. */
  next(): { value: unknown } | undefined {
    while (this.#pending) {
      const end = this.#pending.indexOf(NEWLINE);
      if (end === -1) return undefined;
      const cut = end > 0 && this.#pending[end - 1] === 0x0d ? end - 1 : end;
      const line = this.#pending.toString('utf8', 0, cut);
      this.#pending = end + 1 < this.#pending.length ? this.#pending.subarray(end + 1) : undefined;
      try {
        return { value: JSON.parse(line) };
      } catch (error) {
        if (error instanceof SyntaxError) continue;
        throw error;
      }
    }
    return undefined;
  }

  /** Forgets unfinished bytes. */
  clear(): void {
    this.#pending = undefined;
  }
}
