/**
 * The check of every dashboard call that needs a login (`/dashboard/api/*`, logout): the
 * dashboard's own Origin, then a live session's token in `Authorization: Bearer`. A cookie
 * counts for nothing. The session found stays with the request, for a stream that must
 * end with it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TuttiError } from '../errors/index.js';
import { bearerTokenOf } from '../server/session-cache.js';
import { refuse } from './answers.js';
import type { DashboardSession, DashboardSessions } from './dashboard-sessions.js';
import { checkSameOrigin } from './origin-guard.js';

/** The guard, as a route's `onRequest`, and the session it found for a request. */
export interface SessionGuard {
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  /** The session that `onRequest` let `request` through with. */
  sessionOf(request: FastifyRequest): DashboardSession | undefined;
}

/** A guard over `sessions`. */
export function createSessionGuard(sessions: DashboardSessions): SessionGuard {
  const found = new WeakMap<FastifyRequest, DashboardSession>();
  return {
    async onRequest(request, reply) {
      const badOrigin = checkSameOrigin(request);
      if (badOrigin) return refuse(reply, badOrigin);
      const session = sessions.find(bearerTokenOf(request.headers.authorization));
      if (!session) return refuse(reply, new TuttiError('TUTTI_ERR_DASHBOARD_SIGNED_OUT'));
      found.set(request, session);
    },
    sessionOf: (request) => found.get(request),
  };
}
