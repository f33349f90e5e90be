/**
 * The MCP 2025-06-18 surface (what Codex, Claude Code and opencode speak): `initialize`
 * with version negotiation, `ping`, `tools/list`, `tools/call`, empty resources, and the
 * `initialized` / `cancelled` notifications. Stateless: nothing is kept between POSTs,
 * and `tools.listChanged` is false because a POST-only surface cannot deliver it.
 */
import { isJSONRPCNotification, isJSONRPCRequest } from '@modelcontextprotocol/server';
import {
  LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  RpcCode,
  SERVER_INFO,
} from './constants.js';
import { isPlainObject } from '../util/objects.js';
import { errorResponse, type RpcId, RpcError, resultResponse } from './json-rpc.js';
import {
  ACCEPTED,
  type Answer,
  cancelFromNotification,
  runToolCall,
  type ServeContext,
} from './serve-context.js';
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

/** Answers one legacy-era JSON-RPC message (a request or a notification). */
export async function serveLegacy(message: unknown, ctx: ServeContext): Promise<Answer> {
  if (isJSONRPCNotification(message)) {
    if (message.method === 'notifications/cancelled') cancelFromNotification(ctx, message.params);
    return ACCEPTED;
  }
  if (!isJSONRPCRequest(message)) {
    const error = new RpcError(RpcCode.InvalidRequest, 'Bad Request: not a JSON-RPC request', {
      httpStatus: 400,
    });
    return { status: 400, body: errorResponse(null, error) };
  }
  return answerLegacyRequest(message, ctx);
}

/** Answers one legacy-era request already known to be a valid JSON-RPC request. */
export async function answerLegacyRequest(
  message: { readonly id: RpcId; readonly method: string; readonly params?: unknown },
  ctx: ServeContext,
): Promise<Answer> {
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
