/**
 * The MCP 2026-07-28 surface: stateless requests, each carrying the `_meta` envelope and
 * the `MCP-Protocol-Version` / `Mcp-Method` (/ `Mcp-Name`, `Mcp-Param-*`) headers.
 * Serves `server/discover`, `tools/list`, `tools/call`, `subscriptions/listen` and empty
 * `prompts/list`, `resources/list`, `resources/templates/list`; `server/discover` carries
 * the connectors' instructions (instructions-member.ts). Every result carries
 * `resultType`; cacheable ones carry `ttlMs` / `cacheScope`; all carry the server info.
 * The request arrives classified (inbound-message.ts); its headers are checked here.
 * A `tools/call` of a caller that declared elicitation may take several requests: an
 * upstream's question answers it `input_required` and its retry resumes the parked call
 * (parked-calls.ts); its progress goes to the request waiting on it, if that one sent a
 * `progressToken`.
 */
import { randomBytes } from 'node:crypto';
import { SubscriptionFilterSchema } from '@modelcontextprotocol/core';
import type { SubscriptionFilter } from '@modelcontextprotocol/server';
import type { TokenService } from '../auth/index.js';
import type { RelayedElicitation } from '../contracts/index.js';
import type { ConnectorMCPRegistry } from '../registry/types.js';
import { isPlainObject } from '../util/objects.js';
import type { ToolCallObserver } from './call-observer.js';
import { CALL_RESULT_SERVER_INFO as SERVER_INFO_META, callResultJson } from './call-result-json.js';
import {
  CACHE_HINT,
  DEFAULT_MAX_ARGUMENT_DEPTH,
  DEFAULT_MAX_PARKED_CALLS,
  DEFAULT_MAX_PARKED_CALLS_PER_TOKEN,
  DEFAULT_PARKED_CALL_TTL_MS,
  MODERN_PROTOCOL_VERSION,
  RpcCode,
} from './constants.js';
import type { InboundRequest } from './inbound-message.js';
import { elicitationModes, inputRequiredJson, isRetry } from './input-required.js';
import { perInstructions } from './instructions-member.js';
import { RpcError } from './json-rpc.js';
import { createMcpHeaderChecks, type HeaderOf } from './mcp-param-headers.js';
import { type CallOutcome, createParkedCalls } from './parked-calls.js';
import { legOf, observingLegs } from './parked-observation.js';
import { createRequestStates } from './request-state.js';
import type { RequestScope, SurfaceResult } from './surface.js';
import type { Tools } from './tool-call.js';

/** A modern request that opens a `subscriptions/listen` stream. */
export interface ListenStart {
  readonly listen: SubscriptionFilter;
}

/** Members every cacheable modern result ends with. */
const CACHEABLE_TAIL = `,"resultType":"complete","ttlMs":${CACHE_HINT.ttlMs},"cacheScope":"${CACHE_HINT.cacheScope}",${SERVER_INFO_META}`;

/** What a `server/discover` result holds before the instructions. */
const DISCOVER_HEAD = `{"supportedVersions":${JSON.stringify([MODERN_PROTOCOL_VERSION])},"capabilities":{"tools":{"listChanged":true}}`;

function listenFilter(params: unknown): SubscriptionFilter {
  const parsed = SubscriptionFilterSchema.safeParse(
    isPlainObject(params) ? params.notifications : undefined,
  );
  if (!parsed.success) {
    throw new RpcError(
      RpcCode.InvalidParams,
      "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter",
    );
  }
  // Only tool-list changes exist here; every other requested type is not honored.
  return parsed.data.toolsListChanged === true ? { toolsListChanged: true } : {};
}

/** Serves one classified modern request: its result JSON, or the listen stream to open. */
export type ModernSurface = ((
  request: InboundRequest,
  scope: RequestScope,
) => Promise<SurfaceResult | ListenStart>) & {
  /**
   * `observer` as the edge must use it, so a call taking several requests is observed
   * once (parked-observation.ts).
   */
  observing(observer: ToolCallObserver): ToolCallObserver;
  /** Cancels every parked call upstream (shutdown). */
  close(): void;
  /** Calls parked now. */
  readonly parkedCalls: number;
};

/** Options of the multi round-trip calls of {@link createModernSurface}. */
export interface ModernSurfaceOptions {
  /** Watched for revocations: a revoked token's parked calls are cancelled upstream. */
  readonly tokens: Pick<TokenService, 'onRevoked'>;
  /** HMAC-SHA256 key sealing `requestState` (at least 32 bytes; default: random). */
  readonly requestStateKey?: Buffer;
  readonly maxParkedCalls?: number;
  readonly maxParkedCallsPerToken?: number;
  readonly parkedCallTtlMs?: number;
  readonly maxArgumentDepth?: number;
  /**
   * Told of each question relayed in an `input_required` answer; the function it returns
   * is called when the question is no longer pending (the board of pending ones).
   */
  readonly onRelay?: (relayed: RelayedElicitation) => () => void;
  /** Clock of `requestState` expiry (ms since the epoch); `Date.now` by default. */
  readonly now?: () => number;
}

/** The answer of a `tools/call` leg for `outcome`; an error is thrown. */
function legAnswer(outcome: CallOutcome, scope: RequestScope): string {
  switch (outcome.kind) {
    case 'result':
      return callResultJson(outcome.result);
    case 'error':
      throw outcome.error;
    case 'input':
      legOf(scope.observed)?.defer();
      return inputRequiredJson(outcome.request, outcome.state);
  }
}

/** The modern surface of one server over `registry` and its `tools`. */
export function createModernSurface(
  registry: ConnectorMCPRegistry,
  tools: Tools,
  options: ModernSurfaceOptions,
): ModernSurface {
  const checkHeaders = createMcpHeaderChecks();
  const discoverResult = perInstructions(
    registry,
    (member) => `${DISCOVER_HEAD}${member}${CACHEABLE_TAIL}}`,
  );
  const parked = createParkedCalls({
    states: createRequestStates(options.requestStateKey ?? randomBytes(32)),
    tokens: options.tokens,
    maxParked: options.maxParkedCalls ?? DEFAULT_MAX_PARKED_CALLS,
    maxPerToken: options.maxParkedCallsPerToken ?? DEFAULT_MAX_PARKED_CALLS_PER_TOKEN,
    ttlMs: options.parkedCallTtlMs ?? DEFAULT_PARKED_CALL_TTL_MS,
    maxArgumentDepth: options.maxArgumentDepth ?? DEFAULT_MAX_ARGUMENT_DEPTH,
    connectorOf: (tool) => registry.resolve(tool)?.connectorKey ?? '',
    ...(options.onRelay && { onRelay: options.onRelay }),
    ...(options.now && { now: options.now }),
  });

  /** A `tools/call` leg: a plain call, the first leg of one that may ask, or a retry. */
  const callTool = async (params: unknown, scope: RequestScope): Promise<string> => {
    if (isRetry(params)) {
      const leg = legOf(scope.observed);
      return legAnswer(
        await parked.resume(params, scope.session, scope.signal, leg, scope.onProgress),
        scope,
      );
    }
    const modes = elicitationModes(params);
    // A caller that cannot be asked: the upstream's questions are answered `cancel`.
    if (modes.size === 0) return callResultJson(await tools.call(params, scope));
    const record = params as Record<string, unknown>;
    // The upstream leg is the call's, whichever request is waiting when it ends.
    const observed = legOf(scope.observed)?.call ?? scope.observed;
    const outcome = await parked.start(
      {
        session: scope.session,
        tool: typeof record.name === 'string' ? record.name : '',
        args: record.arguments,
        modes,
        // Progress goes to whichever request is waiting on the call, with its own token;
        // a first request without a token causes none upstream, as a plain call.
        run: (signal, elicit, onProgress) =>
          tools.call(params, {
            signal,
            observed,
            elicit,
            ...(scope.onProgress !== undefined && { onProgress }),
          }),
      },
      scope.signal,
      observed,
      scope.onProgress,
    );
    return legAnswer(outcome, scope);
  };

  const surface: (
    request: InboundRequest,
    scope: RequestScope,
  ) => Promise<SurfaceResult | ListenStart> = async (request, scope) => {
    const header: HeaderOf = (name) => {
      const value = scope.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    const mismatch = checkHeaders(request, registry.snapshot(), header);
    if (mismatch) throw mismatch;
    const { method, params } = request;
    switch (method) {
      case 'server/discover':
        return discoverResult();
      case 'tools/list':
        return tools.list(params, CACHEABLE_TAIL);
      case 'tools/call':
        return callTool(params, scope);
      case 'subscriptions/listen':
        return { listen: listenFilter(params) };
      case 'prompts/list':
        return `{"prompts":[]${CACHEABLE_TAIL}}`;
      case 'resources/list':
        return `{"resources":[]${CACHEABLE_TAIL}}`;
      case 'resources/templates/list':
        return `{"resourceTemplates":[]${CACHEABLE_TAIL}}`;
      default:
        // The SDK answers methods outside the revision's registry with 404 (ladder rung 5).
        throw new RpcError(RpcCode.MethodNotFound, `Method not found: ${method}`, {
          httpStatus: 404,
        });
    }
  };
  return Object.defineProperties(surface, {
    observing: { value: observingLegs },
    close: { value: () => parked.close() },
    parkedCalls: { get: () => parked.size },
  }) as ModernSurface;
}
