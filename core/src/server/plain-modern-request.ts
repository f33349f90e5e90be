/**
 * A structural check for the common 2026-07-28 POST: a `tools/call` or `tools/list` request
 * with a well-formed `_meta` envelope and the matching `MCP-Protocol-Version` / `Mcp-Method`
 * headers.
 *
 * Why: `classifyInboundRequest` runs zod parses on every such request (the JSON-RPC request
 * schema and the envelope's `ClientCapabilities` schema). A client sends the same envelope
 * on every request, so the envelope's verdict is asked of the SDK classifier once per
 * distinct envelope (keyed by its JSON text) and remembered; everything else is checked
 * by hand, exactly as the classifier would. Anything unusual (other methods, odd headers,
 * OWS in headers, extra members, invalid ids, unknown envelopes) keeps the SDK path.
 */
import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { isPlainObject } from '../util/objects.js';
import { MODERN_PROTOCOL_VERSION } from './constants.js';
import type { RpcId } from './json-rpc.js';

/** A 2026-07-28 request the SDK classifier would route to the modern surface unchanged. */
export interface PlainModernRequest {
  readonly jsonrpc: '2.0';
  readonly id: RpcId;
  readonly method: 'tools/call' | 'tools/list';
  readonly params: Record<string, unknown> & { readonly _meta: Record<string, unknown> };
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
/** Most distinct envelopes remembered; past it the memo starts over (clients reuse one). */
const VERDICT_LIMIT = 256;
const verdicts = new Map<string, boolean>();

/**
 * Whether the SDK classifier takes `meta` as a valid 2026-07-28 envelope of a request
 * (envelope schema and the JSON-RPC request schema's `_meta` rules), asked once per
 * envelope text. The verdict depends on `meta` alone: other params members are not
 * validated by either schema.
 */
function envelopeAccepted(meta: Record<string, unknown>): boolean {
  const key = JSON.stringify(meta);
  // `null` in the text may stand for a non-finite number (JSON.parse('1e400') is Infinity),
  // so the text would not pin the value down: such envelopes keep the SDK path.
  if (key.includes('null')) return false;
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: MODERN_PROTOCOL_VERSION,
      mcpMethodHeader: 'tools/list',
      mcpNameHeader: undefined,
      body: { jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: meta } },
    });
    verdict = route.kind === 'modern' && route.classification.revision === MODERN_PROTOCOL_VERSION;
    if (verdicts.size >= VERDICT_LIMIT) verdicts.clear();
    verdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * True when `body` is a strict JSON-RPC `tools/call` or `tools/list` request carrying a
 * 2026-07-28 envelope the SDK accepts, and the headers name exactly that version and
 * method: `classifyInboundRequest` would return the modern request route for it.
 */
export function isPlainModernRequest(
  body: unknown,
  protocolVersionHeader: string | undefined,
  mcpMethodHeader: string | undefined,
): body is PlainModernRequest {
  if (protocolVersionHeader !== MODERN_PROTOCOL_VERSION || !isPlainObject(body)) return false;
  const method = body.method;
  if (method !== 'tools/call' && method !== 'tools/list') return false;
  if (mcpMethodHeader !== method || body.jsonrpc !== '2.0') return false;
  const id = body.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) {
    return false;
  }
  const params = body.params;
  if (!isPlainObject(params)) return false;
  const meta = params._meta;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_PROTOCOL_VERSION)
    return false;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return false;
  return envelopeAccepted(meta);
}
