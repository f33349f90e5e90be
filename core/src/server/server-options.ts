/** The options of the `connector` server (connector-app.ts, connector-server.ts). */
import type { Logger } from 'pino';
import type { TokenService, TokenSession } from '../auth/index.js';
import type { ConnectorMCPRegistry } from '../registry/types.js';
import type { ToolCallObserver } from './call-observer.js';

/** Options shared by the app and the server. */
export interface ConnectorServerOptions {
  /** The registry whose tools are served. */
  readonly registry: ConnectorMCPRegistry;
  /** The token service that authenticates agent sessions. */
  readonly tokens: TokenService;
  /** Base logger; the server logs through a redacting child. Silent when absent. */
  readonly logger?: Logger;
  /** Largest accepted request body in bytes (default 4 MiB). */
  readonly bodyLimit?: number;
  /** Interval of SSE keep-alive comments; 0 disables them (default 15 s). */
  readonly keepAliveMs?: number;
  /** Most `subscriptions/listen` streams one token may hold open at once (default 16). */
  readonly maxListenStreamsPerToken?: number;
  /** `tools/list` page size (default 500). */
  readonly pageSize?: number;
  /**
   * Deepest nesting of objects and arrays accepted in `tools/call` arguments (default 64;
   * the arguments object is level 1); deeper calls are answered -32602 and reach no upstream.
   */
  readonly maxArgumentDepth?: number;
  /**
   * Told after each JSON-RPC request was answered: whose session sent it, the method and the
   * HTTP status (a JSON-RPC error may answer 200); never a token. Runs synchronously right
   * after the answer is built.
   */
  readonly onAnswered?: (session: TokenSession, method: string, status: number) => void;
  /** Told about each `tools/call` (the audit and the traces); none when absent. */
  readonly observer?: ToolCallObserver;
  /**
   * Longest wait for an agent's answer to an upstream's elicitation relayed to it, in ms;
   * then the upstream is answered `cancel` (default 600000, 10 minutes).
   */
  readonly elicitationTimeoutMs?: number;
  /** HMAC-SHA256 key sealing 2026-07-28 `requestState` (≥ 32 bytes; default: random). */
  readonly requestStateKey?: Buffer;
  /** Most calls parked on an `input_required` answer at once (default 64). */
  readonly maxParkedCalls?: number;
  /** Most of them per token (default 4). */
  readonly maxParkedCallsPerToken?: number;
  /** How long a parked call waits for its retry, then is cancelled (default 10 min). */
  readonly parkedCallTtlMs?: number;
}
