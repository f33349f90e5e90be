/** Fixed facts of the loopback `connector` server: endpoint, protocol versions, codes. */
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { CONNECTOR_SERVER_NAME } from '../contracts/index.js';

/** The one MCP endpoint path. */
export const CONNECTOR_ENDPOINT = '/mcp/connector';

/** The stateless protocol revision of the modern surface. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The revision the `initialize` surface implements and counter-offers. */
export const LEGACY_PROTOCOL_VERSION = '2025-06-18';

/** Older revisions an `initialize` may ask for and get (the tools subset is the same). */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  LEGACY_PROTOCOL_VERSION,
  '2025-03-26',
  '2024-11-05',
];

/** What the server says it is, in `initialize` and in every modern result's `_meta`. */
export const SERVER_INFO = Object.freeze({
  name: CONNECTOR_SERVER_NAME,
  title: 'Tutti connectors',
  version: '0.1.0',
});

/** Default upper bound of a request body: 4 MiB, as the SDK's own HTTP entry. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * Default deepest nesting of objects and arrays in `tools/call` arguments (the arguments
 * object itself is level 1). Deeper arguments are the caller's error: answered -32602
 * before any upstream call, since serializing them could overflow the daemon's stack.
 */
export const DEFAULT_MAX_ARGUMENT_DEPTH = 64;

/** Default `tools/list` page size. */
export const DEFAULT_PAGE_SIZE = 500;

/**
 * Default most `subscriptions/listen` streams one token holds open at once. A client needs
 * one; a few spare cover reconnects whose old stream has not closed yet.
 */
export const DEFAULT_MAX_LISTEN_STREAMS_PER_TOKEN = 16;

/** Default interval of SSE keep-alive comments on `subscriptions/listen` streams. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

/**
 * Cache hint of every cacheable modern result. `ttlMs: 0` because the tool list changes
 * whenever a connector does; listeners learn of changes through `subscriptions/listen`.
 */
export const CACHE_HINT = Object.freeze({ ttlMs: 0, cacheScope: 'private' as const });

/** JSON-RPC error codes used on the wire. */
export const RpcCode = Object.freeze({
  ParseError: ProtocolErrorCode.ParseError,
  InvalidRequest: ProtocolErrorCode.InvalidRequest,
  MethodNotFound: ProtocolErrorCode.MethodNotFound,
  InvalidParams: ProtocolErrorCode.InvalidParams,
  InternalError: ProtocolErrorCode.InternalError,
  /** Generic server error, used for HTTP-level refusals (401, 403, 405, 429). */
  ServerError: -32_000,
  /**
   * 2026-07-28 `HeaderMismatch` (SEP-2243). The SDK keeps it off `ProtocolErrorCode`
   * because 2025-era vocabulary has no such code.
   */
  HeaderMismatch: -32_020,
  MissingRequiredClientCapability: ProtocolErrorCode.MissingRequiredClientCapability,
  UnsupportedProtocolVersion: ProtocolErrorCode.UnsupportedProtocolVersion,
  /** A call the client cancelled (the client ignores the answer; HTTP still needs one). */
  RequestCancelled: -32_800,
});

/**
 * Default longest wait for an agent's answer to a relayed elicitation: the person may be
 * away, and an upstream waiting longer than this is answered `cancel`.
 */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 600_000;

/**
 * Most elicitations one token may have pending on 2025 response streams at once, and most
 * for the whole server: past them, an upstream's question is answered `cancel` at once, so
 * a flood of eliciting calls cannot pin the server's memory or the person's attention.
 */
export const MAX_PENDING_ELICITATIONS_PER_TOKEN = 16;
export const MAX_PENDING_ELICITATIONS = 256;

/** Most tokens whose declared elicitation capability is remembered (oldest dropped). */
export const MAX_REMEMBERED_CAPABILITIES = 4096;

/**
 * Bytes a streamed `tools/call` answer may hold unsent before progress notifications are
 * dropped: a caller that does not read must not make the daemon buffer a chatty upstream.
 */
export const STREAM_PROGRESS_BUFFER_LIMIT = 1024 * 1024;

/**
 * Default most upstream calls parked on a 2026-07-28 `input_required` answer at once, per
 * server and per token; past either, the upstream's question is answered `cancel`.
 */
export const DEFAULT_MAX_PARKED_CALLS = 64;
export const DEFAULT_MAX_PARKED_CALLS_PER_TOKEN = 4;

/**
 * Default time a parked call waits for its retry before it is cancelled upstream: 10
 * minutes, as long as a 2025 caller is waited for.
 */
export const DEFAULT_PARKED_CALL_TTL_MS = 600_000;
