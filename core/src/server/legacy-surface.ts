/**
 * The MCP 2025-06-18 surface (what Codex, Claude Code and opencode speak): `initialize`
 * with version negotiation, `ping`, `tools/list`, `tools/call`, empty resources, and the
 * `initialized` / `cancelled` notifications. Stateless: nothing is kept between POSTs,
 * and `tools.listChanged` is false because a POST-only surface cannot deliver it.
 */
import {
  LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  RpcCode,
  SERVER_INFO,
} from './constants.js';
import { isPlainObject } from '../util/objects.js';
import { errorResponse, RpcError, resultResponse } from './json-rpc.js';
import type { InboundRequest } from './inbound-message.js';
import { type Answer, runToolCall, type ServeContext } from './serve-context.js';
import { toolCallParams, toolsListResult } from './tool-call.js';

/** The version an `initialize` asking for `requested` gets. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && LEGACY_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LEGACY_PROTOCOL_VERSION;
}

function initializeResult(params: unknown): string {
  if (!isPlainObject(params) || typeof params.protocolVersion !== 'string') {
    throw new RpcError(RpcCode.InvalidParams, 'Invalid params: initialize needs "protocolVersion"');
  }
  return JSON.stringify({
    protocolVersion: negotiateVersion(params.protocolVersion),
    capabilities: { tools: { listChanged: false } },
    serverInfo: SERVER_INFO,
  });
}

async function resultOf(method: string, params: unknown, id: string | number, ctx: ServeContext) {
  switch (method) {
    case 'initialize':
      return initializeResult(params);
    case 'ping':
      return '{}';
    case 'tools/list':
      return toolsListResult(ctx.registry, params, ctx.pageSize);
    case 'tools/call': {
      const { name, args } = toolCallParams(params);
      return JSON.stringify(await runToolCall(ctx, id, name, args));
    }
    case 'resources/list':
      return '{"resources":[]}';
    case 'resources/templates/list':
      return '{"resourceTemplates":[]}';
    default:
      throw new RpcError(RpcCode.MethodNotFound, `Method not found: ${method}`);
  }
}

/** Answers one classified legacy-era request. */
export async function serveLegacy(message: InboundRequest, ctx: ServeContext): Promise<Answer> {
  try {
    return {
      status: 200,
      body: resultResponse(
        message.id,
        await resultOf(message.method, message.params, message.id, ctx),
      ),
    };
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    return { status: error.httpStatus, body: errorResponse(message.id, error) };
  }
}
