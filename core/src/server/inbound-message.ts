/**
 * The one classification of a POSTed body: a typed inbound message (a request of the
 * legacy or the modern era, a notification, a response to a request this server sent, or a
 * rejection with its JSON-RPC error).
 *
 * Two structural fast paths come first, beside the SDK's `classifyInboundRequest` they
 * stand in for: the SDK's checks are zod parses (about 5% of the server's CPU per
 * `tools/call`), and the common bodies can be recognized by hand exactly as the SDK would
 * route them. Property tests (`inbound-message.test.ts`) hold each fast path to the SDK's
 * verdict. Everything unusual (envelopes the memo has not seen, `_meta` on a 2025 request,
 * odd headers, notifications, responses, batches, malformed bodies) goes to the SDK.
 */
import {
  classifyInboundRequest,
  isJSONRPCNotification,
  isJSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { isPlainObject } from '../util/objects.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION, RpcCode } from './constants.js';
import { type RpcId, RpcError } from './json-rpc.js';

/** A JSON-RPC request of one era, ready for that era's surface. */
export interface InboundRequest {
  readonly kind: 'request';
  readonly era: 'legacy' | 'modern';
  readonly id: RpcId;
  readonly method: string;
  readonly params: unknown;
}

/** A JSON-RPC notification (answered 202, whatever its era). */
export interface InboundNotification {
  readonly kind: 'notification';
  readonly method: string;
  readonly params: unknown;
}

/**
 * A JSON-RPC response (to an `elicitation/create` this server relayed): answered 202,
 * whatever it answers. The SDK routes responses to the 2025 era whatever the headers say.
 */
export interface InboundResponse {
  readonly kind: 'response';
  /** Its id (an error response may have none). */
  readonly id: RpcId | null;
  /** Its result; undefined for an error response. */
  readonly result?: unknown;
  /** None: a response is no request, and is not told to `onAnswered`. */
  readonly method?: undefined;
}

/** A body answered with an error before any surface sees it. */
export interface InboundRejection {
  readonly kind: 'rejected';
  /** The body's id when it has a valid one, else null. */
  readonly id: RpcId | null;
  readonly error: RpcError;
  /** The method, when the body is a JSON-RPC request nonetheless. */
  readonly method?: string;
}

/** What one POST body is. */
export type InboundMessage =
  | InboundRequest
  | InboundNotification
  | InboundResponse
  | InboundRejection;

/** The request headers classification reads (absent: undefined). */
export interface InboundHeaders {
  readonly protocolVersion: string | undefined;
  readonly mcpMethod: string | undefined;
  readonly mcpName: string | undefined;
}

/** A JSON-RPC request that the SDK would classify as a plain 2025-era request. */
export interface PlainRequest {
  readonly jsonrpc: '2.0';
  readonly id: RpcId;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** A 2026-07-28 request the SDK classifier would hand to the modern surface unchanged. */
export interface PlainModernRequest {
  readonly jsonrpc: '2.0';
  readonly id: RpcId;
  readonly method: 'tools/call' | 'tools/list';
  readonly params: Record<string, unknown> & { readonly _meta: Record<string, unknown> };
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
/** Most distinct envelopes one memo remembers; past it, it starts over (clients reuse one). */
const VERDICT_LIMIT = 256;

/** The SDK's verdicts on 2026-07-28 envelopes, keyed by envelope JSON text (one per server). */
export type EnvelopeVerdicts = Map<string, boolean>;

/** An empty envelope memo. */
export function createEnvelopeVerdicts(): EnvelopeVerdicts {
  return new Map();
}

function isRequestId(id: unknown): id is RpcId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

/**
 * True when `body` is a strict JSON-RPC request (the SDK's `JSONRPCRequestSchema`) whose
 * params carry no `_meta`. The SDK's schema takes any `_meta` it can parse; this check
 * takes none, so those go to the SDK.
 */
export function isPlainRequest(body: unknown): body is PlainRequest {
  if (!isPlainObject(body)) return false;
  if (body.jsonrpc !== '2.0' || typeof body.method !== 'string' || !isRequestId(body.id)) {
    return false;
  }
  const params = body.params;
  if (params !== undefined && (!isPlainObject(params) || '_meta' in params)) return false;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return false;
  return true;
}

/**
 * True when `body` is a plain request and `protocolVersionHeader` names no modern era:
 * the SDK would hand it to the legacy surface with no rejection.
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

/**
 * Whether the SDK classifier takes `meta` as a valid 2026-07-28 envelope of a request,
 * asked once per envelope text and remembered in `verdicts`. The verdict depends on `meta`
 * alone: other params members are validated by neither schema.
 */
function envelopeAccepted(meta: Record<string, unknown>, verdicts: EnvelopeVerdicts): boolean {
  const key = JSON.stringify(meta);
  // `null` in the text may stand for a non-finite number (JSON.parse('1e400') is Infinity),
  // so the text would not pin the value down: such envelopes keep the SDK path.
  if (key.includes('null')) return false;
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    const classified = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: MODERN_PROTOCOL_VERSION,
      mcpMethodHeader: 'tools/list',
      mcpNameHeader: undefined,
      body: { jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: meta } },
    });
    verdict =
      classified.kind === 'modern' &&
      classified.classification.revision === MODERN_PROTOCOL_VERSION;
    if (verdicts.size >= VERDICT_LIMIT) verdicts.clear();
    verdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * True when `body` is a strict JSON-RPC `tools/call` or `tools/list` request carrying a
 * 2026-07-28 envelope the SDK accepts, and the headers name exactly that version and
 * method: `classifyInboundRequest` would classify it as a modern request.
 */
export function isPlainModernRequest(
  body: unknown,
  protocolVersionHeader: string | undefined,
  mcpMethodHeader: string | undefined,
  verdicts: EnvelopeVerdicts,
): body is PlainModernRequest {
  if (protocolVersionHeader !== MODERN_PROTOCOL_VERSION || !isPlainObject(body)) return false;
  const method = body.method;
  if (method !== 'tools/call' && method !== 'tools/list') return false;
  if (mcpMethodHeader !== method || body.jsonrpc !== '2.0' || !isRequestId(body.id)) return false;
  const params = body.params;
  if (!isPlainObject(params)) return false;
  const meta = params._meta;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_PROTOCOL_VERSION) {
    return false;
  }
  for (const key in body) if (!REQUEST_KEYS.has(key)) return false;
  return envelopeAccepted(meta, verdicts);
}

function request(era: InboundRequest['era'], message: PlainRequest): InboundRequest {
  return { kind: 'request', era, id: message.id, method: message.method, params: message.params };
}

function rejected(id: RpcId | null, error: RpcError, body?: unknown): InboundRejection {
  return isJSONRPCRequest(body)
    ? { kind: 'rejected', id, error, method: body.method }
    : { kind: 'rejected', id, error };
}

function invalidRequest(message: string): RpcError {
  return new RpcError(RpcCode.InvalidRequest, message, { httpStatus: 400 });
}

/** The id of a JSON-RPC message body, when it has a valid one. */
function idOf(body: unknown): RpcId | null {
  if (!isPlainObject(body)) return null;
  const id = body.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

/**
 * Classifies one parsed POST body. The SDK decides from the body (an envelope claim means
 * 2026-07-28) with the headers as cross-checks, and its ladder rejections come back as
 * rejections; `verdicts` is the calling server's envelope memo.
 */
export function classifyInbound(
  body: unknown,
  headers: InboundHeaders,
  verdicts: EnvelopeVerdicts,
): InboundMessage {
  if (isPlainLegacyRequest(body, headers.protocolVersion)) return request('legacy', body);
  if (isPlainModernRequest(body, headers.protocolVersion, headers.mcpMethod, verdicts)) {
    return request('modern', body);
  }
  const classified = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headers.protocolVersion,
    mcpMethodHeader: headers.mcpMethod,
    mcpNameHeader: headers.mcpName,
    body,
  });
  switch (classified.kind) {
    case 'reject': {
      const error = new RpcError(classified.code, classified.message, {
        httpStatus: classified.httpStatus,
        data: classified.data,
      });
      return rejected(idOf(body), error, body);
    }
    case 'legacy':
      if (classified.reason === 'batch') {
        return rejected(
          null,
          invalidRequest(
            'Bad Request: JSON-RPC batches are not supported; send one message per POST',
          ),
        );
      }
      if (classified.reason === 'response') {
        // The SDK checked the shape: a result response or an error response.
        const response = body as { id?: RpcId; result?: unknown };
        return 'result' in response
          ? { kind: 'response', id: response.id ?? null, result: response.result }
          : { kind: 'response', id: response.id ?? null };
      }
      if (isJSONRPCNotification(body)) {
        return { kind: 'notification', method: body.method, params: body.params };
      }
      if (isJSONRPCRequest(body)) return request('legacy', body as PlainRequest);
      return rejected(null, invalidRequest('Bad Request: not a JSON-RPC request'));
    case 'modern': {
      const revision = classified.classification.revision;
      if (revision !== undefined && revision !== MODERN_PROTOCOL_VERSION) {
        const error = new RpcError(
          RpcCode.UnsupportedProtocolVersion,
          `Unsupported protocol version: ${revision}`,
          { httpStatus: 400, data: { supported: [MODERN_PROTOCOL_VERSION], requested: revision } },
        );
        return classified.messageKind === 'request'
          ? {
              kind: 'rejected',
              id: classified.message.id,
              error,
              method: classified.message.method,
            }
          : { kind: 'rejected', id: null, error };
      }
      if (classified.messageKind === 'notification') {
        return {
          kind: 'notification',
          method: classified.message.method,
          params: classified.message.params,
        };
      }
      return request('modern', classified.message as PlainRequest);
    }
  }
}
