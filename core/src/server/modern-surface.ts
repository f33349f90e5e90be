/**
 * The MCP 2026-07-28 surface: stateless requests, each carrying the `_meta` envelope and
 * the `MCP-Protocol-Version` / `Mcp-Method` (/ `Mcp-Name`, `Mcp-Param-*`) headers.
 * Serves `server/discover`, `tools/list`, `tools/call`, `subscriptions/listen` and empty
 * `prompts/list`, `resources/list`, `resources/templates/list`. Every result carries
 * `resultType`; cacheable ones carry `ttlMs` / `cacheScope`; all carry the server info.
 * Era classification and envelope checks come from the SDK (`classifyInboundRequest`).
 */
import { SubscriptionFilterSchema } from '@modelcontextprotocol/core';
import type { SubscriptionFilter } from '@modelcontextprotocol/server';
import type { ToolsSnapshot } from '../registry/types.js';
import { CALL_RESULT_SERVER_INFO as SERVER_INFO_META, callResultJson } from './call-result-json.js';
import { CACHE_HINT, MODERN_PROTOCOL_VERSION, RpcCode } from './constants.js';
import type { InboundRequest } from './inbound-message.js';
import { isPlainObject } from '../util/objects.js';
import { errorResponse, RpcError, resultResponse } from './json-rpc.js';
import {
  checkMcpParamHeaders,
  decodeHeaderValue,
  headerMismatch,
  type McpHeaderDeclaration,
  scanMcpHeaderDeclarations,
} from './mcp-param-headers.js';
import { type Answer, runToolCall, type ServeContext } from './serve-context.js';
import { toolCallParams, toolsListResult } from './tool-call.js';

/** A modern request that opens a `subscriptions/listen` stream. */
export interface ListenStart {
  readonly listen: { readonly id: string | number; readonly honored: SubscriptionFilter };
}

/** Members every cacheable modern result ends with. */
const CACHEABLE_TAIL = `,"resultType":"complete","ttlMs":${CACHE_HINT.ttlMs},"cacheScope":"${CACHE_HINT.cacheScope}",${SERVER_INFO_META}`;

const DISCOVER_RESULT = `{"supportedVersions":${JSON.stringify([MODERN_PROTOCOL_VERSION])},"capabilities":{"tools":{"listChanged":true}}${CACHEABLE_TAIL}}`;

const declarationsBySnapshot = new WeakMap<ToolsSnapshot, Map<string, McpHeaderDeclaration[]>>();

/** The `x-mcp-header` declarations of `name` in the current snapshot, scanned once per snapshot. */
function declarationsOf(ctx: ServeContext, name: string): readonly McpHeaderDeclaration[] {
  const snapshot = ctx.registry.snapshot();
  let byName = declarationsBySnapshot.get(snapshot);
  if (!byName) {
    byName = new Map();
    for (const tool of snapshot.tools) {
      const found = scanMcpHeaderDeclarations(tool.inputSchema);
      if (found.length > 0) byName.set(tool.name, found);
    }
    declarationsBySnapshot.set(snapshot, byName);
  }
  return byName.get(name) ?? [];
}

/** SEP-2243 presence checks of the standard headers, and `Mcp-Name` against the body. */
function checkStandardHeaders(message: InboundRequest, ctx: ServeContext): RpcError | undefined {
  const method = message.method;
  if (ctx.header('mcp-protocol-version') === undefined) {
    return headerMismatch('(missing)', 'the required MCP-Protocol-Version header is absent');
  }
  if (ctx.header('mcp-method') === undefined) {
    return headerMismatch(
      '(missing)',
      `the body names method ${method} but the required Mcp-Method header is absent`,
    );
  }
  if (method !== 'tools/call') return undefined;
  const name = isPlainObject(message.params) ? message.params.name : undefined;
  if (typeof name !== 'string') return undefined;
  const header = ctx.header('mcp-name');
  if (header === undefined) {
    return headerMismatch(
      '(missing)',
      `the body carries params.name="${name}" but the required Mcp-Name header is absent`,
    );
  }
  const decoded = decodeHeaderValue(header.trim());
  if (decoded === undefined) {
    return headerMismatch(header, 'the Mcp-Name header carries an invalid Base64 sentinel value');
  }
  if (decoded !== name) {
    return headerMismatch(
      header,
      `the body carries params.name="${name}" but the Mcp-Name header names "${decoded}"`,
    );
  }
  return undefined;
}

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

async function resultOf(message: InboundRequest, ctx: ServeContext) {
  const { method, params, id } = message;
  switch (method) {
    case 'server/discover':
      return DISCOVER_RESULT;
    case 'tools/list':
      return toolsListResult(ctx.registry, params, ctx.pageSize, CACHEABLE_TAIL);
    case 'tools/call': {
      const { name, args } = toolCallParams(params);
      const mismatch = checkMcpParamHeaders(declarationsOf(ctx, name), args, (h) => ctx.header(h));
      if (mismatch) throw mismatch;
      return callResultJson(await runToolCall(ctx, id, name, args));
    }
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
}

/** Answers one classified modern-era request, or tells the caller to open a listen stream. */
export async function serveModern(
  message: InboundRequest,
  ctx: ServeContext,
): Promise<Answer | ListenStart> {
  const { id } = message;
  try {
    const mismatch = checkStandardHeaders(message, ctx);
    if (mismatch) throw mismatch;
    if (message.method === 'subscriptions/listen') {
      return { listen: { id, honored: listenFilter(message.params) } };
    }
    return { status: 200, body: resultResponse(id, await resultOf(message, ctx)) };
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    return { status: error.httpStatus, body: errorResponse(id, error) };
  }
}
