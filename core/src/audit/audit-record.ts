/**
 * An entry becomes a record: what the call path handed over, plus what is computed off it
 * (the `seq`, the size and digest of the arguments' JSON text, and, with the capture setting
 * on, the values as redacted, capped text). Runs in the writer's flush, never on append.
 */
import * as crypto from 'node:crypto';
import type { AuditEntry } from './audit-log.js';
import type { AuditRecord } from './types.js';

/**
 * The hex SHA-256 of `text`: the one-shot `crypto.hash` (Node 20.12 on; about five times
 * cheaper per small text than a Hash object), else a Hash object on older Node 20 releases.
 */
const sha256: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text)
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** Most UTF-8 bytes kept of a captured value (the arguments, the result), marker included. */
export const CAPTURED_VALUE_BYTES = 4096;

/** What ends a captured value that was cut; `N` is the size of the whole (redacted) text. */
export function truncationMarker(totalBytes: number): string {
  return `…[truncated: ${totalBytes} bytes in all]`;
}

/** How values are captured: absent when they are not. */
export interface ValueCapture {
  readonly redact: (text: string) => string;
}

/** The record of `entry` at `seq`; with `capture`, its values too. */
export function toAuditRecord(
  entry: AuditEntry,
  seq: number,
  capture: ValueCapture | undefined,
): AuditRecord {
  const argText = jsonText(entry.args ?? {});
  // Named field by field, in the documented order: an entry that carries more (the call
  // path's own fields) adds nothing to the file.
  return {
    seq,
    time: entry.time,
    workspace: entry.workspace,
    session: entry.session,
    provider: entry.provider,
    tool: entry.tool,
    connector: entry.connector,
    upstreamTool: entry.upstreamTool,
    generation: entry.generation,
    protocol: entry.protocol,
    durationMs: entry.durationMs,
    outcome: entry.outcome,
    code: entry.code,
    rpcCode: entry.rpcCode,
    argBytes: Buffer.byteLength(argText, 'utf8'),
    resultBytes: entry.resultBytes,
    argDigest: `sha256:${sha256(argText)}`,
    traceId: entry.traceId,
    ...(capture && {
      arguments: captured(argText, capture),
      ...(entry.callResult !== undefined && {
        result: captured(jsonText(entry.callResult), capture),
      }),
    }),
  };
}

/** `value` as JSON text; a note for a value JSON cannot hold (never: arguments are parsed JSON). */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '"[not serializable]"';
  }
}

/** `text` redacted first (so no cut leaves half a secret), then capped. */
function captured(text: string, capture: ValueCapture): string {
  return capText(capture.redact(text), CAPTURED_VALUE_BYTES);
}

/**
 * `text` if it fits in `maxBytes` UTF-8 bytes, else its start and the truncation marker,
 * together at most `maxBytes` (a character is never cut in half).
 */
export function capText(text: string, maxBytes: number): string {
  const total = Buffer.byteLength(text, 'utf8');
  if (total <= maxBytes) return text;
  const marker = truncationMarker(total);
  const room = Math.max(0, maxBytes - Buffer.byteLength(marker, 'utf8'));
  // A character is at least one byte, so the first `room` characters hold the bytes kept;
  // decoding a cut character (or half a surrogate pair) gives U+FFFD at the end: drop it.
  const start = Buffer.from(text.slice(0, room), 'utf8')
    .subarray(0, room)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  return start + marker;
}
