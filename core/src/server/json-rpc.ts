/**
 * The wire form of the `connector` server's answers, and the one conversion of an error to
 * it. Two error families reach the edge: protocol errors ({@link RpcError}, which carry a
 * JSON-RPC code, e.g. method not found or a header mismatch) and tutti errors (string
 * codes from `errors/codes.ts`, e.g. an unknown tool or an upstream that timed out). A
 * tutti error reaches the client with its own code and message; this is the only place
 * that decides its JSON-RPC code, and the only place a cancelled call is told as such.
 * Results are built as strings (or byte chunks) so a prepared `tools/list` page is spliced
 * in without being parsed or serialized again.
 */
import type { ErrorCode } from '../errors/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { RpcCode } from './constants.js';

/** A JSON-RPC request id. */
export type RpcId = string | number;

/** A JSON-RPC error with the HTTP status it is answered with. */
export class RpcError extends Error {
  readonly code: number;
  readonly httpStatus: number;
  readonly data?: unknown;

  constructor(
    code: number,
    message: string,
    options: { httpStatus?: number; data?: unknown } = {},
  ) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.httpStatus = options.httpStatus ?? 200;
    this.data = options.data;
  }
}

/**
 * Tutti errors about one call, answered in band (HTTP 200) with this JSON-RPC code. Every
 * other tutti error refuses the request itself: its own HTTP status, the code below or
 * the generic server error. Each way an upstream `tools/call` can fail keeps its own code
 * in `data.code`; a tool's own failure (`isError: true`) is a result and never gets here.
 */
const IN_BAND: Partial<Record<ErrorCode, number>> = {
  TUTTI_ERR_REGISTRY_UNKNOWN_TOOL: RpcCode.InvalidParams,
  TUTTI_ERR_REGISTRY_ROUTE_FENCED: RpcCode.InvalidParams,
  TUTTI_ERR_REGISTRY_BAD_CURSOR: RpcCode.InvalidParams,
  TUTTI_ERR_SERVER_ARGUMENTS_TOO_DEEP: RpcCode.InvalidParams,
  TUTTI_ERR_SERVER_SHUTTING_DOWN: RpcCode.InternalError,
  TUTTI_ERR_UPSTREAM_CANCELLED: RpcCode.RequestCancelled,
  TUTTI_ERR_UPSTREAM_CALL_TIMEOUT: RpcCode.InternalError,
  TUTTI_ERR_UPSTREAM_CALL_REJECTED: RpcCode.InternalError,
  TUTTI_ERR_UPSTREAM_INVALID_RESULT: RpcCode.InternalError,
  TUTTI_ERR_UPSTREAM_CALL_FAILED: RpcCode.InternalError,
  TUTTI_ERR_UPSTREAM_EXITED: RpcCode.InternalError,
  TUTTI_ERR_UPSTREAM_CLOSED: RpcCode.InternalError,
};

/** JSON-RPC codes of the refusals that are not the generic server error. */
const REFUSAL: Partial<Record<ErrorCode, number>> = {
  TUTTI_ERR_SERVER_BODY_TOO_LARGE: RpcCode.InvalidRequest,
  TUTTI_ERR_SERVER_BAD_BODY: RpcCode.ParseError,
  TUTTI_ERR_SERVER_BAD_MEDIA_TYPE: RpcCode.InvalidRequest,
  TUTTI_ERR_SERVER_INTERNAL: RpcCode.InternalError,
};

/**
 * The JSON-RPC error a thrown value is answered with: a protocol error as it is, a tutti
 * error by the tables above (its code in `data.code`); undefined for anything else.
 * `closing`: the server aborted the request because it is closing, so a call the upstream
 * ended as cancelled was stopped by the shutdown, not by its client.
 */
export function rpcErrorOf(error: unknown, closing = false): RpcError | undefined {
  if (error instanceof RpcError) return error;
  if (!isTuttiError(error)) return undefined;
  if (closing && error.code === 'TUTTI_ERR_UPSTREAM_CANCELLED') {
    const stopped = new TuttiError('TUTTI_ERR_SERVER_SHUTTING_DOWN', error.details, {
      cause: error,
    });
    return rpcErrorOf(stopped);
  }
  const data = { code: error.code };
  const inBand = IN_BAND[error.code];
  if (inBand !== undefined) return new RpcError(inBand, error.message, { data });
  return new RpcError(REFUSAL[error.code] ?? RpcCode.ServerError, error.message, {
    httpStatus: error.status,
    data,
  });
}

/** The tutti error of one of fastify's body errors (size, JSON, media type). */
export function bodyErrorOf(
  error: { code?: string; statusCode?: number },
  bodyLimit: number,
): TuttiError {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new TuttiError('TUTTI_ERR_SERVER_BODY_TOO_LARGE', { limit: bodyLimit });
  }
  if (error.statusCode === 415 || error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new TuttiError('TUTTI_ERR_SERVER_BAD_MEDIA_TYPE');
  }
  const reason =
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
      ? 'the body is empty'
      : 'the body is not valid JSON';
  return new TuttiError('TUTTI_ERR_SERVER_BAD_BODY', { reason });
}

const CLOSE = Buffer.from('}', 'utf8');

/**
 * A JSON-RPC response whose `result` is the given (already serialized) JSON: text, or
 * UTF-8 chunks (then the response is one Buffer, copied once).
 */
export function resultResponse(id: RpcId, resultJson: string): string;
export function resultResponse(id: RpcId, resultJson: string | readonly Buffer[]): string | Buffer;
export function resultResponse(id: RpcId, resultJson: string | readonly Buffer[]): string | Buffer {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  if (typeof resultJson === 'string') return `${head}${resultJson}}`;
  return Buffer.concat([Buffer.from(head, 'utf8'), ...resultJson, CLOSE]);
}

/** A JSON-RPC error response; `id` is null when the request's id is unknown. */
export function errorResponse(id: RpcId | null | undefined, error: RpcError): string {
  const body: { code: number; message: string; data?: unknown } = {
    code: error.code,
    message: error.message,
  };
  if (error.data !== undefined) body.data = error.data;
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: body });
}
