/**
 * Splits a stdio MCP stream into parsed JSON lines, without validating them: the transport
 * decides per message whether it needs the SDK's schema check. Bounded like the SDK's
 * `ReadBuffer` (10 MB of pending bytes); lines that are not JSON are skipped, as there.
 */

/** Most bytes of one unfinished line kept before the stream is given up (the SDK's bound). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Collects chunks and yields each complete line's `JSON.parse` value. */
export interface JsonLineReader {
  /** Adds a chunk; throws (and forgets everything) when the unfinished bytes exceed the bound. */
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
  return {
    append(chunk) {
      const size = (pending?.length ?? 0) + chunk.length;
      if (size > maxBytes) {
        pending = undefined;
        throw new Error(`ReadBuffer exceeded maximum size of ${maxBytes} bytes`);
      }
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
    },
  };
}
