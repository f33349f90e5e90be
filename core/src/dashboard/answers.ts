/**
 * What every dashboard answer carries: no caching, no sniffing, no referrer, no framing;
 * and the dashboard's error answer in the control API's `{ error: { code, message } }`.
 */
import type { FastifyReply } from 'fastify';
import { errorBody } from '../daemon/control-app.js';
import type { TuttiError } from '../errors/index.js';

/** Headers of every dashboard answer. */
export const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Answers `error` with its status and the dashboard's headers. */
export function refuse(reply: FastifyReply, error: TuttiError): FastifyReply {
  return reply.code(error.status).headers(HEADERS).send(errorBody(error));
}
