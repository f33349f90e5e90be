/**
 * The MCP 2026-07-28 surface: stateless requests, each carrying the `_meta` envelope and
 * the `MCP-Protocol-Version` / `Mcp-Method` (/ `Mcp-Name`, `Mcp-Param-*`) headers.
 * Serves `server/discover`, `tools/list`, `tools/call`, `subscriptions/listen` and empty
 * `prompts/list`, `resources/list`, `resources/templates/list`; `server/discover` carries
 * the connectors' instructions (instructions-member.ts). Every result carries
 * `resultType`; cacheable ones carry `ttlMs` / `cacheScope`; all carry the server info.
 * The request arrives classified (inbound-message.ts); its headers are checked here.
 */
import { SubscriptionFilterSchema } from '@modelcontextprotocol/core';
import type { SubscriptionFilter } from '@modelcontextprotocol/server';
import type { ConnectorMCPRegistry } from '../registry/types.js';
import { isPlainObject } from '../util/objects.js';
import { CALL_RESULT_SERVER_INFO as SERVER_INFO_META, callResultJson } from './call-result-json.js';
import { CACHE_HINT, MODERN_PROTOCOL_VERSION, RpcCode } from './constants.js';
import type { InboundRequest } from './inbound-message.js';
import { perInstructions } from './instructions-member.js';
import { RpcError } from './json-rpc.js';
import { createMcpHeaderChecks, type HeaderOf } from './mcp-param-headers.js';
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
export type ModernSurface = (
  request: InboundRequest,
  scope: RequestScope,
) => Promise<SurfaceResult | ListenStart>;

/** The modern surface of one server over `registry` and its `tools`. */
export function createModernSurface(registry: ConnectorMCPRegistry, tools: Tools): ModernSurface {
  const checkHeaders = createMcpHeaderChecks();
  const discoverResult = perInstructions(
    registry,
    (member) => `${DISCOVER_HEAD}${member}${CACHEABLE_TAIL}}`,
  );
  return async (request, scope) => {
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
        return callResultJson(await tools.call(params, scope));
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
}
