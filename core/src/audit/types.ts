/**
 * The audit trail: one record per `tools/call` through the `connector` server, kept as JSON
 * lines in `<home>/audit/` (docs/audit.md). A record says who called what, when, for how
 * long and how it ended, and sizes and a digest of the arguments, never their values (unless
 * the capture setting asks for them, then through the secret redactor).
 */

/** How a call ended. */
export type AuditOutcome =
  /** A result that is not an error. */
  | 'ok'
  /** A result with `isError: true`: the tool ran and failed. */
  | 'tool_error'
  /** A JSON-RPC error answer (bad params, unknown tool, an upstream that refused or ended). */
  | 'rpc_error'
  /** The upstream did not answer within its call timeout. */
  | 'timeout'
  /** The agent cancelled, went away, or the daemon stopped. */
  | 'cancelled'
  /** The connector needs a sign-in, or its server refused the credential. */
  | 'auth_required';

/** Every outcome, in the order the docs list them. */
export const AUDIT_OUTCOMES: readonly AuditOutcome[] = [
  'ok',
  'tool_error',
  'rpc_error',
  'timeout',
  'cancelled',
  'auth_required',
];

/** One audit record, as written (one JSON line) and as `GET /v1/audit` returns it. */
export interface AuditRecord {
  /** Increasing over the home's life: the paging cursor. */
  readonly seq: number;
  /** When the call arrived (ISO 8601, UTC). */
  readonly time: string;
  readonly workspace: string;
  /** The agent session whose token made the call. */
  readonly session: string;
  /** The session's provider, when the daemon holds the session. */
  readonly provider?: string;
  /** The tool name the agent called (`<connectorKey>_<tool>`). */
  readonly tool: string;
  /** The connector, upstream tool and generation it resolved to (absent when it did not). */
  readonly connector?: string;
  readonly upstreamTool?: string;
  readonly generation?: number;
  /** The MCP protocol version the call came in (`2025-06-18`, `2026-07-28`, ...). */
  readonly protocol: string;
  readonly durationMs: number;
  readonly outcome: AuditOutcome;
  /** The daemon's error code (`TUTTI_ERR_*`) of a failed call. */
  readonly code?: string;
  /** The JSON-RPC error code the agent was answered with. */
  readonly rpcCode?: number;
  /** Bytes of the arguments and of the result, as JSON. */
  readonly argBytes: number;
  readonly resultBytes: number;
  /** `sha256:` and the hex digest of the arguments' JSON text. */
  readonly argDigest: string;
  /** The call's trace, when it has one. */
  readonly traceId?: string;
  /** Captured values (only with the capture setting on), redacted and capped. */
  readonly arguments?: string;
  readonly result?: string;
}

/** A query of `GET /v1/audit`. */
export interface AuditQuery {
  /** Only records at or after this time (epoch ms). */
  readonly since?: number;
  readonly connector?: string;
  readonly session?: string;
  readonly outcome?: AuditOutcome;
  /** Only records with a lower `seq` (the next page of a listing). */
  readonly before?: number;
  /** Only records with a higher `seq` (what is new since the last look). */
  readonly after?: number;
  /** Most records returned (default 100, at most 1,000). */
  readonly limit?: number;
}

/** One page of records, newest first. */
export interface AuditPage {
  readonly records: readonly AuditRecord[];
  /** Pass as `before` for the next (older) page; absent on the last page. */
  readonly nextBefore?: number;
}
