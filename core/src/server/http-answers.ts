/**
 * HTTP-level answers of the server that are not MCP results: guard refusals, body errors
 * (size, JSON, media type) and the choice between a JSON and a one-event SSE answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TuttiError } from '../errors/index.js';
import { RpcCode } from './constants.js';
import { errorResponse } from './json-rpc.js';
import type { Answer } from './serve-context.js';
import { rpcErrorOf } from './tool-call.js';

/** Answers a guard refusal: the tutti error's status, a JSON-RPC error body. */
export function refuse(
  reply: FastifyReply,
  error: TuttiError,
  id: string | number | null = null,
): FastifyReply {
  return reply
    .code(error.status)
    .type('application/json')
    .send(errorResponse(id, rpcErrorOf(RpcCode.ServerError, error, error.status)));
}

/** A request header as one string, or undefined. */
export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

let lastAccept: { value: string | undefined; eventStreamOnly: boolean } = {
  value: undefined,
  eventStreamOnly: false,
};

/**
 * True when the client accepts SSE but not JSON. Everyone else gets plain JSON: no stream
 * and no event store (an SSE answer with an event store costs about 2 ms a call).
 */
export function wantsEventStreamOnly(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  // A client sends the same Accept on every POST: remember the last answer.
  if (accept === lastAccept.value) return lastAccept.eventStreamOnly;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const json = types.some(
    (type) => type === 'application/json' || type === 'application/*' || type === '*/*',
  );
  const eventStreamOnly = !json && types.includes('text/event-stream');
  lastAccept = { value: accept, eventStreamOnly };
  return eventStreamOnly;
}

/** Maps fastify's body errors (size, JSON, media type) onto JSON-RPC answers. */
export function answerBodyError(
  error: { code?: string; statusCode?: number; message: string },
  bodyLimit: number,
): Answer {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const tutti = new TuttiError('TUTTI_ERR_SERVER_BODY_TOO_LARGE', { limit: bodyLimit });
    return {
      status: 413,
      body: errorResponse(null, rpcErrorOf(RpcCode.InvalidRequest, tutti, 413)),
    };
  }
  const reason =
    error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
      ? 'the content type is not application/json'
      : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
        ? 'the body is empty'
        : 'the body is not valid JSON';
  const status = error.statusCode === 415 ? 415 : 400;
  const code = status === 415 ? RpcCode.InvalidRequest : RpcCode.ParseError;
  const tutti = new TuttiError('TUTTI_ERR_SERVER_BAD_BODY', { reason });
  return { status, body: errorResponse(null, rpcErrorOf(code, tutti, status)) };
}
