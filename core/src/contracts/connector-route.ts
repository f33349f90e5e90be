/**
 * Records the registry keeps: one connector's tools at one generation, the handle that
 * calls its upstream MCP server, and the immutable binding a `tools/call` resolves to.
 */
import type { CallProgress, ElicitationAnswer, ElicitationRequest } from './elicitation.js';
import type { JsonSchemaObject } from './json.js';

/** Result of an upstream `tools/call`, passed through with its MCP meaning intact. */
export interface UpstreamCallResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * The part of an `AbortSignal` an upstream call uses; an `AbortSignal` is one. The server
 * passes a lighter object per `tools/call` (see server/in-flight-calls.ts): creating an
 * AbortController per call was the largest single cost of the call path.
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Options of one upstream call: its cancellation, and who answers what the upstream asks. */
export interface UpstreamCallOptions {
  signal?: CallSignal;
  /** Members added to the upstream request's `params._meta` (the trace context). */
  meta?: Readonly<Record<string, string>>;
  /**
   * Asks the person what the upstream's `elicitation/create` asks, during this call. Absent,
   * or when it rejects, the upstream is answered `cancel` at once; nothing waits.
   */
  elicit?: (request: ElicitationRequest) => Promise<ElicitationAnswer>;
  /**
   * Told each progress notification of this call, in order. Absent, the upstream request
   * carries no progress token (so the upstream sends none).
   */
  onProgress?: (progress: CallProgress) => void;
}

/** Handle on a running upstream MCP client; the registry never opens or closes it. */
export interface UpstreamClient {
  /** The negotiated MCP protocol version, when known (for traces). */
  readonly protocolVersion?: string | undefined;
  /** How the daemon reaches the server: `pipe` (stdio) or `tcp` (HTTP), when known. */
  readonly transport?: 'pipe' | 'tcp';
  /**
   * Calls `tools/call` upstream with the arguments unchanged. Resolves with a checked MCP
   * tool result (a tool's own failure, `isError: true`, included). Rejects with a TuttiError
   * whose code says how the call failed (`TUTTI_ERR_UPSTREAM_*`), passed to the client as
   * it is; soon after `options.signal` aborts, with TUTTI_ERR_UPSTREAM_CANCELLED (the caller
   * does not race it).
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options?: UpstreamCallOptions,
  ): Promise<UpstreamCallResult>;
}

/** One upstream tool as listed by the upstream server (MCP `Tool`). */
export interface UpstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** A tool as the `connector` server serves it: local name plus the upstream tool. */
export interface ConnectorTool {
  /** `<connectorKey>_<tool>`, canonical, at most 48 characters. */
  readonly localName: string;
  /** The tool's name on its upstream server, exactly as listed. */
  readonly upstreamName: string;
  /** The upstream tool definition, frozen. */
  readonly tool: Readonly<UpstreamTool>;
}

/** One connector's complete tool set at one generation. */
export interface ConnectorRoute {
  readonly connectorKey: string;
  readonly generation: number;
  readonly client: UpstreamClient;
  readonly tools: readonly ConnectorTool[];
}

/** What `resolve(localName)` returns: immutable for the life of one call. */
export interface ToolBinding {
  readonly connectorKey: string;
  readonly generation: number;
  readonly localName: string;
  readonly upstreamName: string;
  readonly client: UpstreamClient;
  /** True while this binding's generation is still the connector's current one. */
  isCurrent(): boolean;
}
