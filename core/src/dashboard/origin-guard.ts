/**
 * The dashboard's stricter Origin rule. The control API lets any loopback Origin through,
 * and for a browser another port of 127.0.0.1 is the same site. The dashboard's login is a
 * token that only its own page holds (dashboard-sessions.ts), so this is a second wall: a
 * browser page of another origin is refused even before its lack of a token is.
 */
import type { FastifyRequest } from 'fastify';
import { TuttiError } from '../errors/index.js';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * TUTTI_ERR_DASHBOARD_CROSS_ORIGIN unless the request comes from the dashboard's own page.
 * A request that changes something must carry its Origin (browsers always send it).
 */
export function checkSameOrigin(request: FastifyRequest): TuttiError | undefined {
  const expected = `http://${(request.headers.host ?? '').toLowerCase()}`;
  const origin = request.headers.origin;
  const site = request.headers['sec-fetch-site'];
  const refuse = (from: string) =>
    new TuttiError('TUTTI_ERR_DASHBOARD_CROSS_ORIGIN', { expected, origin: from.slice(0, 100) });
  if (site !== undefined && site !== 'same-origin') {
    return refuse(origin ?? `a ${site} page`);
  }
  if (origin !== undefined && origin.toLowerCase() !== expected) return refuse(origin);
  if (origin === undefined && !SAFE_METHODS.has(request.method)) return refuse('no Origin header');
  return undefined;
}
