/**
 * The dashboard on the control app: its page, its API, and its login. A login link is
 * `http://127.0.0.1:<port>/#login=<one-time code>`: the code travels in the fragment, which
 * a browser never sends in a request line; the page removes it from the address bar and
 * history at once, then trades it (`POST /dashboard/login`, from its own Origin) for a
 * session token that it keeps in its tab's `sessionStorage` and sends on every call.
 * `POST /dashboard/logout` ends the session and every stream it opened.
 */
import type { FastifyInstance } from 'fastify';
import { TuttiError } from '../errors/index.js';
import { bearerTokenOf } from '../server/session-cache.js';
import { HEADERS, refuse } from './answers.js';
import { type ApiContext, registerApiRoutes } from './api-routes.js';
import { type Clock, systemClock } from './clock.js';
import { createDashboardSessions } from './dashboard-sessions.js';
import { createLoginCodes, LOGIN_CODE_TTL_MS } from './login-codes.js';
import { checkSameOrigin } from './origin-guard.js';
import { registerPageRoutes } from './page-routes.js';
import { createSessionGuard } from './session-guard.js';

/** What the dashboard reads and acts through. */
export interface DashboardContext extends ApiContext {
  /** Clock of the login codes and sessions (tests give their own). */
  readonly clock?: Clock;
}

/** The dashboard of one daemon. */
export interface Dashboard {
  /** A new one-time login link and when it expires (ms since the epoch). */
  loginLink(): { url: string; expiresAt: number };
}

/** Adds the dashboard's routes to `app` (the control app) and answers its login links. */
export function registerDashboard(app: FastifyInstance, ctx: DashboardContext): Dashboard {
  const clock = ctx.clock ?? systemClock;
  const codes = createLoginCodes({ now: clock.now });
  const sessions = createDashboardSessions(clock);
  const guard = createSessionGuard(sessions);
  // The control app leaves the credential check of these routes to them.
  const own = { ownAuth: true };

  registerPageRoutes(app, own);
  registerApiRoutes(app, ctx, guard, own);

  app.route({
    method: 'POST',
    url: '/dashboard/login',
    config: own,
    onRequest: async (request, reply) => {
      const badOrigin = checkSameOrigin(request);
      if (badOrigin) return refuse(reply, badOrigin);
    },
    handler: async (request, reply) => {
      const code = (request.body as { code?: unknown } | null | undefined)?.code;
      if (typeof code !== 'string' || !codes.redeem(code)) {
        const minutes = LOGIN_CODE_TTL_MS / 60_000;
        return refuse(reply, new TuttiError('TUTTI_ERR_DASHBOARD_BAD_LOGIN_CODE', { minutes }));
      }
      return reply.headers(HEADERS).send(sessions.start());
    },
  });

  app.route({
    method: 'POST',
    url: '/dashboard/logout',
    config: own,
    onRequest: guard.onRequest,
    handler: async (request, reply) => {
      sessions.end(bearerTokenOf(request.headers.authorization));
      return reply.headers(HEADERS).send({ signedOut: true });
    },
  });

  const loginLink = () => {
    const { code, expiresAt } = codes.issue();
    return { url: `http://127.0.0.1:${ctx.port()}/#login=${code}`, expiresAt };
  };
  // A new link for one who holds the control token (the banner's may be used or expired).
  app.post('/v1/dashboard/login', async () => loginLink());
  return { loginLink };
}
