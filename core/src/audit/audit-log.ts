/**
 * The audit log's contract: records are handed over on the call path and written later,
 * in batches, as JSON lines in `<home>/audit/` (docs/audit.md). The implementation is
 * `openAuditLog` (audit-writer.ts).
 */
import type { UpstreamCallResult } from '../contracts/index.js';
import type { AuditPage, AuditQuery, AuditRecord } from './types.js';

/**
 * A call as the call path hands it over: the record without what is computed off the call
 * path (its `seq`, the argument sizes and digest, captured values).
 */
export type AuditEntry = Omit<
  AuditRecord,
  'seq' | 'argBytes' | 'argDigest' | 'arguments' | 'result'
> & {
  /** The call's arguments as parsed (never changed after); measured and digested later. */
  readonly args: unknown;
  /** The call's result, when it had one; kept only when values are captured. */
  readonly callResult?: UpstreamCallResult;
};

/** Options of `openAuditLog`. */
export interface AuditLogOptions {
  /** The audit folder (`<home>/audit`), created 0700. */
  readonly dir: string;
  /** Size past which the current file is rotated (default 8 MiB). */
  readonly maxFileBytes?: number;
  /** Most files kept, the current one included; the oldest go first (default 8). */
  readonly maxFiles?: number;
  /** How long a record may wait before it is written (default 250 ms). */
  readonly flushMs?: number;
  /** Most records waiting to be written; past it the oldest waiting are dropped and counted (default 20,000). */
  readonly maxQueued?: number;
  /** Keep argument and result values, redacted and capped (default false). */
  readonly captureValues?: boolean;
  /** Removes secrets from captured text (the daemon's secret redactor). */
  readonly redact?: (text: string) => string;
  /** Told about a write that failed (the records of that batch are counted as dropped). */
  readonly onError?: (error: Error) => void;
}

/** The audit log of one daemon. */
export interface AuditLog {
  /** Hands one call over; it is written within `flushMs`. Never throws, never waits. */
  append(entry: AuditEntry): void;
  /** Records matching `query`, newest first (what waits to be written included). */
  query(query: AuditQuery): Promise<AuditPage>;
  /** Writes everything handed over so far. */
  flush(): Promise<void>;
  /** Flushes and closes the file; later appends are dropped. */
  close(): Promise<void>;
  /** Records written, and records lost (queue overflow, failed writes), since open. */
  readonly stats: { readonly written: number; readonly dropped: number };
}
