/**
 * Routes one POSTed message to its era: the SDK's `classifyInboundRequest` decides from
 * the body (an envelope claim means 2026-07-28) with the headers as cross-checks, and
 * answers ladder rejections itself; the rest goes to the legacy or the modern surface.
 * Plain 2025 requests take a structural shortcut to the legacy surface first, ordinary
 * 2026-07-28 `tools/call` / `tools/list` requests one to the modern surface.
 */
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { MODERN_PROTOCOL_VERSION, RpcCode } from './constants.js';
import { errorResponse, idOf, RpcError } from './json-rpc.js';
import { answerLegacyRequest, serveLegacy } from './legacy-surface.js';
import { type ListenStart, serveModern } from './modern-surface.js';
import { isPlainModernRequest } from './plain-modern-request.js';
import { isPlainLegacyRequest } from './plain-request.js';
import type { Answer, ServeContext } from './serve-context.js';

function invalidRequest(message: string): Answer {
  return { status: 400, body: errorResponse(null, new RpcError(RpcCode.InvalidRequest, message)) };
}

/** Answers one parsed POST body, or tells the caller to open a listen stream. */
export async function dispatch(body: unknown, ctx: ServeContext): Promise<Answer | ListenStart> {
  const protocolVersionHeader = ctx.header('mcp-protocol-version');
  // The hot path: a plain 2025 request skips the SDK's zod guards (see plain-request.ts).
  if (isPlainLegacyRequest(body, protocolVersionHeader)) return answerLegacyRequest(body, ctx);
  const mcpMethodHeader = ctx.header('mcp-method');
  // The 2026-07-28 hot path: the route the SDK would build (see plain-modern-request.ts).
  if (isPlainModernRequest(body, protocolVersionHeader, mcpMethodHeader)) {
    return serveModern(
      {
        kind: 'modern',
        messageKind: 'request',
        message: body,
        classification: { era: 'modern', revision: MODERN_PROTOCOL_VERSION },
      },
      ctx,
    );
  }
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader,
    mcpMethodHeader,
    mcpNameHeader: ctx.header('mcp-name'),
    body,
  });
  switch (route.kind) {
    case 'reject': {
      const error = new RpcError(route.code, route.message, {
        httpStatus: route.httpStatus,
        data: route.data,
      });
      return { status: route.httpStatus, body: errorResponse(idOf(body), error) };
    }
    case 'legacy':
      if (route.reason === 'batch') {
        return invalidRequest(
          'Bad Request: JSON-RPC batches are not supported; send one message per POST',
        );
      }
      if (route.reason === 'response') {
        return invalidRequest(
          'Bad Request: this server sends no requests, so it takes no responses',
        );
      }
      return serveLegacy(body, ctx);
    case 'modern':
      return serveModern(route, ctx);
  }
}
