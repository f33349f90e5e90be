/**
 * The dashboard's stricter Origin rule. The control API lets any loopback Origin through,
 * but a cookie goes to every port of 127.0.0.1 (cookies ignore ports, and SameSite counts
 * another local port as the same site), so a page served by another local program could
 * otherwise use the dashboard's cookie. Only the dashboard's own origin passes.
 */
import type { FastifyRequest } from 'fastify';
import { TuttiError } from '../errors/index.js';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * TUTTI_ERR_DASHBOARD_CROSS_ORIGIN unless the request comes from the dashboard's own page
 * (or, for `allowNavigation`, from a link the user opened: `Sec-Fetch-Site: none`). A
 * request that changes something must carry its Origin (browsers always send it).
 */
export function checkSameOrigin(
  request: FastifyRequest,
  allowNavigation = false,
): TuttiError | undefined {
  const expected = `http://${(request.headers.host ?? '').toLowerCase()}`;
  const origin = request.headers.origin;
  const site = request.headers['sec-fetch-site'];
  const refuse = (from: string) =>
    new TuttiError('TUTTI_ERR_DASHBOARD_CROSS_ORIGIN', { expected, origin: from.slice(0, 100) });
  if (site !== undefined && site !== 'same-origin' && !(allowNavigation && site === 'none')) {
    return refuse(origin ?? `a ${site} page`);
  }
  if (origin !== undefined && origin.toLowerCase() !== expected) return refuse(origin);
  if (origin === undefined && !SAFE_METHODS.has(request.method)) return refuse('no Origin header');
  return undefined;
}
