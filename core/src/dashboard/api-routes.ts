/**
 * `/dashboard/api/*`, behind the session guard: each call is passed to the control
 * endpoint of the same name in-process, with the daemon's own control token (which never
 * leaves the daemon), so answers and errors are the control API's (the audit trail of tool
 * calls included, asked with the page's query string as it came, and answered without
 * captured values, and the installed agents: list, install, remove); plus the tool list and
 * the event stream, which ends when the session that opened it does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { streamEvents } from '../daemon/events-endpoint.js';
import { TuttiError } from '../errors/index.js';
import type { EventHub } from '../events/index.js';
import type { ConnectorMCPRegistry } from '../registry/index.js';
import type { ConnectorRuntime } from '../runtime/index.js';
import { HEADERS, refuse } from './answers.js';
import type { SessionGuard } from './session-guard.js';

/** What the API reads and acts through. */
export interface ApiContext {
  readonly controlToken: string;
  /** The control port (known after listen). */
  readonly port: () => number;
  readonly registry: Pick<ConnectorMCPRegistry, 'snapshot'>;
  readonly runtime: Pick<ConnectorRuntime, 'events'>;
  readonly events: EventHub;
}

/** Runtime events kept per connector in the connectors view. */
const RECENT_EVENTS = 5;

/** Adds the API routes to `app`, each behind `guard`; `config` marks them as the dashboard's. */
export function registerApiRoutes(
  app: FastifyInstance,
  ctx: ApiContext,
  guard: SessionGuard,
  config: object,
): void {
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
    app.route({
      method,
      url: `/dashboard/api${path}`,
      config,
      onRequest: guard.onRequest,
      handler,
    });
  /** The query string of `request`, `?` included ('' when it has none), as it came. */
  const queryOf = (request: FastifyRequest) => {
    const at = request.url.indexOf('?');
    return at < 0 ? '' : request.url.slice(at);
  };
  const param = (request: FastifyRequest, name: string) =>
    encodeURIComponent((request.params as Record<string, string>)[name] ?? '');

  api('GET', '/connectors', async (_request, reply) => {
    const answer = await ask('GET', '/v1/connectors');
    if (answer.statusCode !== 200)
      return reply.code(answer.statusCode).headers(HEADERS).send(answer.json());
    const { connectors, sandbox } = answer.json() as {
      connectors: { key: string }[];
      sandbox?: object;
    };
    const recent = ctx.runtime.events();
    return reply.headers(HEADERS).send({
      connectors: connectors.map((connector) => ({
        ...connector,
        recentEvents: recent.filter((event) => event.key === connector.key).slice(-RECENT_EVENTS),
      })),
      // How the daemon isolates servers: the page's notice says why they are not.
      ...(sandbox && { sandbox }),
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
  // What the agents of live sessions are asked and nobody answered yet (read only).
  api('GET', '/elicitations', async (_request, reply) => {
    const answer = await ask('GET', '/v1/elicitations');
    return reply.code(answer.statusCode).headers(HEADERS).send(answer.json());
  });
  api('GET', '/events', (request, reply) => {
    const session = guard.sessionOf(request);
    if (!session) return refuse(reply, new TuttiError('TUTTI_ERR_DASHBOARD_SIGNED_OUT'));
    return streamEvents(ctx.events, request, reply, session.ended);
  });
  // The audit trail of tools/call (the Tool calls view), asked with the page's own query.
  api('GET', '/audit', async (request, reply) => {
    const answer = await ask('GET', `/v1/audit${queryOf(request)}`);
    const body = answer.json() as { records?: Record<string, unknown>[] };
    // Values captured with --audit-values stay in the daemon: the page shows none.
    if (answer.statusCode === 200 && Array.isArray(body.records)) {
      body.records = body.records.map(({ arguments: _a, result: _r, ...record }) => record);
    }
    return reply.code(answer.statusCode).headers(HEADERS).send(body);
  });
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
  api('POST', '/connectors/:key/authorize', (request, reply) =>
    forward(reply, 'POST', `/v1/connectors/${param(request, 'key')}/authorize`),
  );
  api('POST', '/connectors/:key/retry', (request, reply) =>
    forward(reply, 'POST', `/v1/connectors/${param(request, 'key')}/retry`),
  );
  api('POST', '/connectors/:key/rollback', (request, reply) =>
    forward(reply, 'POST', `/v1/connectors/${param(request, 'key')}/rollback`),
  );
  api('DELETE', '/connectors/:key/credentials', (request, reply) =>
    forward(reply, 'DELETE', `/v1/connectors/${param(request, 'key')}/credentials`),
  );
  // The installed ACP agents (the Agents view): list, install (which may take a minute) and remove.
  api('GET', '/agents', (_request, reply) => forward(reply, 'GET', '/v1/agents'));
  api('POST', '/agents/install', (request, reply) =>
    forward(reply, 'POST', '/v1/agents/install', request.body ?? {}),
  );
  api('DELETE', '/agents/:id', (request, reply) =>
    forward(reply, 'DELETE', `/v1/agents/${param(request, 'id')}`),
  );
  api('POST', '/sessions/:id/restart', (request, reply) =>
    forward(reply, 'POST', `/v1/sessions/${param(request, 'id')}/restart`),
  );
  api('DELETE', '/sessions/:id', (request, reply) =>
    forward(reply, 'DELETE', `/v1/sessions/${param(request, 'id')}`),
  );
}
