/**
 * A structural check for the common case of a POST: a plain MCP 2025 JSON-RPC request.
 *
 * Why: the SDK's `classifyInboundRequest` and `isJSONRPCRequest` are zod parses (about 5% of
 * the server's CPU per `tools/call`). A body that passes this check is classified `legacy`
 * by the SDK for certain: it is a strict JSON-RPC request (only `jsonrpc`, `id`, `method`,
 * `params`), carries no `_meta` at all (so no 2026-07-28 envelope claim), and its
 * `MCP-Protocol-Version` header is absent or a 2025-era version (so no modern header and
 * no header cross-check applies). Everything else (envelopes, `_meta`, odd headers,
 * notifications, responses, batches, malformed bodies) still goes through the SDK.
 */
import { LEGACY_PROTOCOL_VERSIONS } from './constants.js';
import type { RpcId } from './json-rpc.js';

/** A JSON-RPC request that the SDK would classify as a plain 2025-era request. */
export interface PlainRequest {
  readonly jsonrpc: '2.0';
  readonly id: RpcId;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * True when `body` is a strict JSON-RPC request (the SDK's `JSONRPCRequestSchema`) whose
 * params carry no `_meta`. The SDK's schema takes any `_meta` it can parse; this check
 * takes none, so callers fall back to the SDK for those.
 */
export function isPlainRequest(body: unknown): body is PlainRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const message = body as Record<string, unknown>;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return false;
  const id = message.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) {
    return false;
  }
  const params = message.params;
  if (params !== undefined) {
    if (params === null || typeof params !== 'object' || Array.isArray(params)) return false;
    if ('_meta' in params) return false;
  }
  for (const key in message) if (!REQUEST_KEYS.has(key)) return false;
  return true;
}

/**
 * True when `body` is a plain request and `protocolVersionHeader` names no modern era:
 * the SDK would route it to the legacy surface with no rejection.
 */
export function isPlainLegacyRequest(
  body: unknown,
  protocolVersionHeader: string | undefined,
): body is PlainRequest {
  return (
    (protocolVersionHeader === undefined ||
      LEGACY_PROTOCOL_VERSIONS.includes(protocolVersionHeader)) &&
    isPlainRequest(body)
  );
}
