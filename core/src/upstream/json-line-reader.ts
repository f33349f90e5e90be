/**
 * Splits a stdio MCP stream into parsed JSON lines, without validating them: the transport
 * decides per message whether it needs the SDK's schema check. Each line is bounded like
 * the SDK's `ReadBuffer` (10 MiB); lines that are not JSON are skipped, as there.
 */

/** Most bytes one line (one message) may take before the stream is given up (the SDK's bound). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/** A line longer than the reader's bound: the stream cannot be read on. */
export class LineTooLongError extends Error {
  /** The bound that was passed, in bytes. */
  readonly limit: number;

  constructor(limit: number) {
    super(`a line passed the bound of ${limit} bytes for one message`);
    this.name = 'LineTooLongError';
    this.limit = limit;
  }
}

/** Collects chunks and yields each complete line's `JSON.parse` value. */
export interface JsonLineReader {
  /** Adds a chunk; throws LineTooLongError (and forgets everything) when a line passes the bound. */
  append(chunk: Buffer): void;
  /** The next complete line's parsed JSON, or undefined when no complete line is left. */
  next(): { value: unknown } | undefined;
  /** Forgets unfinished bytes. */
  clear(): void;
}

/**
 * A reader that keeps at most `maxBytes` of one unfinished line.
 * @example const reader = createJsonLineReader(); reader.append(chunk); reader.next();
 */
export function createJsonLineReader(maxBytes = MAX_LINE_BYTES): JsonLineReader {
  let pending: Buffer | undefined;
  /** Bytes of the unfinished line at the end of `pending`. */
  let unfinished = 0;
  const tooLong = () => {
    pending = undefined;
    unfinished = 0;
    return new LineTooLongError(maxBytes);
  };
  return {
    append(chunk) {
      // The bound is on each line: every line this chunk ends, and the one it leaves open.
      let line = unfinished;
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        if (line + end - start > maxBytes) throw tooLong();
        line = 0;
        start = end + 1;
      }
      if (line + chunk.length - start > maxBytes) throw tooLong();
      unfinished = line + chunk.length - start;
      pending = pending ? Buffer.concat([pending, chunk]) : chunk;
    },
    next() {
      while (pending) {
        const end = pending.indexOf(NEWLINE);
        if (end === -1) return undefined;
        const cut = end > 0 && pending[end - 1] === 0x0d ? end - 1 : end;
        const line = pending.toString('utf8', 0, cut);
        pending = end + 1 < pending.length ? pending.subarray(end + 1) : undefined;
        try {
          return { value: JSON.parse(line) };
        } catch (error) {
          if (error instanceof SyntaxError) continue;
          throw error;
        }
      }
      return undefined;
    },
    clear() {
      pending = undefined;
      unfinished = 0;
    },
  };
}
