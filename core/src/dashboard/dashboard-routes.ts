/**
 * The dashboard's routes on the control app: the page (`/`, `/assets/*`), the one-time
 * login (`/dashboard/login?code=`), logout, and `/dashboard/api/*`, which a live cookie
 * session and the page's own Origin authorize. The API answers what the control API
 * answers: each call is passed to the control endpoint of the same name in-process (the
 * control token never leaves the daemon), plus the tool list and the event stream.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { TuttiError } from '../errors/index.js';
import type { EventHub } from '../events/index.js';
import type { ConnectorMCPRegistry } from '../registry/index.js';
import type { ConnectorRuntime } from '../runtime/index.js';
import { errorBody } from '../daemon/control-app.js';
import { streamEvents } from '../daemon/events-endpoint.js';
import { createCookieSessions } from './cookie-sessions.js';
import { createLoginCodes, LOGIN_CODE_TTL_MS } from './login-codes.js';
import { checkSameOrigin } from './origin-guard.js';
import { PAGE_DIR, pageAsset, pageIndex } from './page-files.js';

/** What the dashboard reads and acts through. */
export interface DashboardContext {
  readonly controlToken: string;
  /** The control port (known after listen). */
  readonly port: () => number;
  readonly registry: ConnectorMCPRegistry;
  readonly runtime: ConnectorRuntime;
  readonly events: EventHub;
  /** Clock of the login codes (tests give their own). */
  readonly now?: () => number;
}

/** The dashboard of one daemon. */
export interface Dashboard {
  /** A new one-time login link and when it expires (ms since the epoch). */
  loginLink(): { url: string; expiresAt: number };
}

/** Runtime events kept per connector in the connectors view. */
const RECENT_EVENTS = 5;

const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function messagePage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(title)}</title><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
}

/** Adds the dashboard's routes to `app` (the control app) and answers its login links. */
export function registerDashboard(app: FastifyInstance, ctx: DashboardContext): Dashboard {
  const codes = createLoginCodes({ ...(ctx.now && { now: ctx.now }) });
  const sessions = createCookieSessions(ctx.port, ctx.now);
  const own = { ownAuth: true };

  const refuse = (reply: FastifyReply, error: TuttiError) =>
    reply.code(error.status).headers(HEADERS).send(errorBody(error));

  /** The route-level check of every `/dashboard/api` call and of logout. */
  const signedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    const badOrigin = checkSameOrigin(request);
    if (badOrigin) return refuse(reply, badOrigin);
    if (!sessions.verify(request.headers.cookie)) {
      return refuse(reply, new TuttiError('TUTTI_ERR_DASHBOARD_SIGNED_OUT'));
    }
  };

  /** Asks the control API `method url`, as the daemon's own client. */
  const ask = (method: HTTPMethods, url: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: {
        host: `127.0.0.1:${ctx.port()}`,
        authorization: `Bearer ${ctx.controlToken}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
  /** Answers with the control API's answer to `method url`. */
  const forward = async (reply: FastifyReply, method: HTTPMethods, url: string, body?: unknown) => {
    const answer = await ask(method, url, body);
    return reply.code(answer.statusCode).headers(HEADERS).send(answer.json());
  };

  const api = (
    method: HTTPMethods,
    path: string,
    handler: (request: FastifyRequest, reply: FastifyReply) => unknown,
  ) =>
    app.route({ method, url: `/dashboard/api${path}`, config: own, onRequest: signedIn, handler });
  const param = (request: FastifyRequest, name: string) =>
    encodeURIComponent((request.params as Record<string, string>)[name] ?? '');

  app.route({
    method: 'GET',
    url: '/',
    config: own,
    handler: async (_request, reply) => {
      const index = await pageIndex();
      if (!index) {
        const error = new TuttiError('TUTTI_ERR_DASHBOARD_NOT_BUILT', { dir: PAGE_DIR });
        return reply
          .code(error.status)
          .headers(HEADERS)
          .type('text/html; charset=utf-8')
          .send(messagePage('Dashboard not built', `${error.code}: ${error.message}`));
      }
      return reply
        .headers({ ...HEADERS, 'content-security-policy': PAGE_POLICY })
        .type(index.type)
        .send(index.body);
    },
  });

  app.route({
    method: 'GET',
    url: '/assets/:name',
    config: own,
    handler: async (request, reply) => {
      const name = (request.params as { name: string }).name;
      const file = await pageAsset(name);
      if (!file) {
        const error = new TuttiError('TUTTI_ERR_CONTROL_NOT_FOUND', {
          what: `GET /assets/${name}`,
        });
        return refuse(reply, error);
      }
      return reply.headers(HEADERS).type(file.type).send(file.body);
    },
  });

  app.route({
    method: 'GET',
    url: '/dashboard/login',
    config: own,
    handler: async (request, reply) => {
      const badOrigin = checkSameOrigin(request, true);
      if (badOrigin) return refuse(reply, badOrigin);
      const code = (request.query as { code?: unknown }).code;
      if (typeof code !== 'string' || !codes.redeem(code)) {
        const error = new TuttiError('TUTTI_ERR_DASHBOARD_BAD_LOGIN_CODE', {
          minutes: LOGIN_CODE_TTL_MS / 60_000,
        });
        return reply
          .code(error.status)
          .headers(HEADERS)
          .type('text/html; charset=utf-8')
          .send(messagePage('Login link not valid', `${error.code}: ${error.message}`));
      }
      // 303 to the page: the code leaves the address bar at once.
      return reply
        .code(303)
        .headers({ ...HEADERS, 'set-cookie': sessions.start(), location: '/' })
        .send();
    },
  });

  app.route({
    method: 'POST',
    url: '/dashboard/logout',
    config: own,
    onRequest: async (request, reply) => {
      const badOrigin = checkSameOrigin(request);
      if (badOrigin) return refuse(reply, badOrigin);
    },
    handler: async (request, reply) => {
      const live = sessions.verify(request.headers.cookie);
      reply.headers({ ...HEADERS, 'set-cookie': sessions.end(request.headers.cookie) });
      if (live) return reply.send({ signedOut: true });
      const error = new TuttiError('TUTTI_ERR_DASHBOARD_SIGNED_OUT');
      return reply.code(error.status).send(errorBody(error));
    },
  });

  api('GET', '/connectors', async (_request, reply) => {
    const answer = await ask('GET', '/v1/connectors');
    if (answer.statusCode !== 200)
      return reply.code(answer.statusCode).headers(HEADERS).send(answer.json());
    const { connectors } = answer.json() as { connectors: { key: string }[] };
    const recent = ctx.runtime.events();
    return reply.headers(HEADERS).send({
      connectors: connectors.map((connector) => ({
        ...connector,
        recentEvents: recent.filter((event) => event.key === connector.key).slice(-RECENT_EVENTS),
      })),
    });
  });
  api('GET', '/tools', async (_request, reply) => {
    const { version, tools } = ctx.registry.snapshot();
    return reply.headers(HEADERS).send({
      version,
      tools: tools.map(({ name, description }) => ({ name, description: description ?? '' })),
    });
  });
  api('GET', '/sessions', async (_request, reply) => {
    const answer = await ask('GET', '/v1/sessions');
    return reply
      .code(answer.statusCode)
      .headers(HEADERS)
      .send({ ...(answer.json() as object), toolsVersion: ctx.registry.snapshot().version });
  });
  api('GET', '/events', (request, reply) => streamEvents(ctx.events, request, reply));
  api('POST', '/connectors/install', (request, reply) =>
    forward(reply, 'POST', '/v1/connectors/install', request.body ?? {}),
  );
  api('DELETE', '/connectors/:key', (request, reply) =>
    forward(reply, 'DELETE', `/v1/connectors/${param(request, 'key')}`),
  );
  api('PUT', '/connectors/:key/credentials', (request, reply) =>
    forward(
      reply,
      'PUT',
      `/v1/connectors/${param(request, 'key')}/credentials`,
      request.body ?? {},
    ),
  );
  api('DELETE', '/connectors/:key/credentials', (request, reply) =>
    forward(reply, 'DELETE', `/v1/connectors/${param(request, 'key')}/credentials`),
  );
  api('DELETE', '/sessions/:id', (request, reply) =>
    forward(reply, 'DELETE', `/v1/sessions/${param(request, 'id')}`),
  );

  const loginLink = () => {
    const { code, expiresAt } = codes.issue();
    return { url: `http://127.0.0.1:${ctx.port()}/dashboard/login?code=${code}`, expiresAt };
  };
  // A new link for one who holds the control token (the banner's may be used or expired).
  app.post('/v1/dashboard/login', async () => loginLink());
  return { loginLink };
}
