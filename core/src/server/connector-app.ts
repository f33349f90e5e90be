/**
 * The fastify app of the loopback `connector` server, without its socket: guards, the
 * POST-only `/mcp/connector` route that picks the era per request, and error mapping.
 * Tests drive it with `app.inject()`; {@link createConnectorServer} binds it to 127.0.0.1.
 */
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import type { TokenService, TokenSession } from '../auth/index.js';
import { TuttiError } from '../errors/index.js';
import type { ConnectorMCPRegistryApi } from '../registry/types.js';
import {
  CONNECTOR_ENDPOINT,
  DEFAULT_BODY_LIMIT,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_PAGE_SIZE,
  RpcCode,
} from './constants.js';
import { checkHost, checkOrigin } from './guards.js';
import { createInFlightCalls, type InFlightCalls } from './in-flight-calls.js';
import { answerBodyError, headerOf, refuse, wantsEventStreamOnly } from './http-answers.js';
import { classifyInbound, createEnvelopeVerdicts, type InboundMessage } from './inbound-message.js';
import { errorResponse, RpcError } from './json-rpc.js';
import { serveLegacy } from './legacy-surface.js';
import { serveModern } from './modern-surface.js';
import { createListenStreams } from './listen-streams.js';
import { lazyChildLoggerFactory } from './lazy-child-logger.js';
import { createServerLogger } from './logger.js';
import { type Answer, cancelFromNotification, type ServeContext } from './serve-context.js';
import { createSessionCache } from './session-cache.js';

const SSE_HEAD = Buffer.from('event: message\ndata: ', 'utf8');
const SSE_TAIL = Buffer.from('\n\n', 'utf8');

/** Options shared by the app and the server. */
export interface ConnectorServerOptions {
  /** The registry whose tools are served. */
  readonly registry: ConnectorMCPRegistryApi;
  /** The token service that authenticates agent sessions. */
  readonly tokens: TokenService;
  /** Base logger; the server logs through a redacting child. Silent when absent. */
  readonly logger?: Logger;
  /** Largest accepted request body in bytes (default 4 MiB). */
  readonly bodyLimit?: number;
  /** Interval of SSE keep-alive comments; 0 disables them (default 15 s). */
  readonly keepAliveMs?: number;
  /** `tools/list` page size (default 500). */
  readonly pageSize?: number;
  /**
   * Told after each JSON-RPC request was answered: whose session sent it, the method and the
   * HTTP status (a JSON-RPC error may answer 200); never a token. Runs synchronously right
   * after the answer is built.
   */
  readonly onAnswered?: (session: TokenSession, method: string, status: number) => void;
}

/** The app plus the hooks its owner needs at shutdown. */
export interface ConnectorApp {
  readonly app: FastifyInstance;
  /** Ends every listen stream and aborts every in-flight call. */
  shutdown(): void;
  /** Running upstream calls (for tests and the debug endpoint). */
  readonly inFlight: InFlightCalls;
}

/**
 * Builds the app. `port()` is the port the Host header must name (the bound port).
 * @example const { app } = buildConnectorApp({ registry, tokens, port: () => 4000 });
 */
export function buildConnectorApp(
  options: ConnectorServerOptions & { port: () => number },
): ConnectorApp {
  const logger = createServerLogger(options.logger);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const inFlight = createInFlightCalls();
  const streams = createListenStreams({
    registry: options.registry,
    tokens: options.tokens,
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    logger,
  });
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit,
    exposeHeadRoutes: false,
    forceCloseConnections: true,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLoggerFactory,
  });
  // The session each authenticated request belongs to (no global FastifyRequest typing).
  const sessions = new WeakMap<FastifyRequest, TokenSession>();

  // The hooks on every POST are callback-style: an async hook costs a promise and a
  // microtask turn per request. Answering without calling `done` ends the request.
  app.addHook('onRequest', (request, reply, done) => {
    const refused =
      checkHost(request.headers.host, options.port()) ?? checkOrigin(request.headers.origin);
    if (!refused) {
      done();
      return;
    }
    request.log.warn({ code: refused.code, url: request.url }, 'request refused');
    refuse(reply, refused);
  });

  // A plain 404 for everything else, `/.well-known/*` included: a JSON body or an OAuth
  // challenge would send OAuth-capable clients into a discovery loop.
  app.setNotFoundHandler((_request, reply) => reply.code(404).type('text/plain').send('Not Found'));

  app.setErrorHandler(
    (error: { code?: string; statusCode?: number; message: string }, request, reply) => {
      if (error.code?.startsWith('FST_ERR_CTP_')) {
        const answer = answerBodyError(error, bodyLimit);
        return reply.code(answer.status).type('application/json').send(answer.body);
      }
      request.log.error({ err: error }, 'connector server request failed');
      const internal = new RpcError(
        RpcCode.InternalError,
        'Internal error of the connector server',
      );
      return reply.code(500).type('application/json').send(errorResponse(null, internal));
    },
  );

  app.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'],
    url: CONNECTOR_ENDPOINT,
    // Answered in onRequest so no body is read (an empty JSON DELETE would be a 400 otherwise).
    onRequest: async (request, reply) => {
      reply.header('allow', 'POST');
      return refuse(
        reply,
        new TuttiError('TUTTI_ERR_SERVER_METHOD_NOT_ALLOWED', {
          method: request.method,
          path: CONNECTOR_ENDPOINT,
        }),
      );
    },
    handler: async () => undefined,
  });

  const sessionCache = createSessionCache(options.tokens);
  const verdicts = createEnvelopeVerdicts();
  const authenticate = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const session = sessionCache.authenticate(request.headers.authorization);
    if (typeof session !== 'string') {
      sessions.set(request, session);
      done();
      return;
    }
    // No WWW-Authenticate challenge: this token is issued by the daemon, not by OAuth.
    refuse(
      reply,
      new TuttiError(
        session === 'missing' ? 'TUTTI_ERR_AUTH_MISSING_TOKEN' : 'TUTTI_ERR_AUTH_INVALID_TOKEN',
      ),
    );
  };

  app.post(CONNECTOR_ENDPOINT, { onRequest: authenticate }, async (request, reply) => {
    const session = sessions.get(request)!;
    // One stored callback instead of an AbortController per POST (see ServeContext).
    let gone = false;
    let onGone: (() => void) | undefined;
    reply.raw.on('close', () => {
      if (reply.raw.writableFinished) return;
      gone = true;
      onGone?.();
    });
    const ctx: ServeContext = {
      registry: options.registry,
      session,
      inFlight,
      pageSize,
      logger: request.log,
      onDisconnect(fn) {
        if (gone) fn();
        else onGone = fn;
        return () => {
          if (onGone === fn) onGone = undefined;
        };
      },
      header: (name) => headerOf(request, name),
    };
    const message: InboundMessage = classifyInbound(
      request.body,
      {
        protocolVersion: headerOf(request, 'mcp-protocol-version'),
        mcpMethod: headerOf(request, 'mcp-method'),
        mcpName: headerOf(request, 'mcp-name'),
      },
      verdicts,
    );
    let answer: Answer;
    switch (message.kind) {
      case 'notification':
        if (message.method === 'notifications/cancelled') {
          cancelFromNotification(ctx, message.params);
        }
        return reply.code(202).send();
      case 'rejected':
        answer = {
          status: message.error.httpStatus,
          body: errorResponse(message.id, message.error),
        };
        break;
      case 'request': {
        const served =
          message.era === 'legacy'
            ? await serveLegacy(message, ctx)
            : await serveModern(message, ctx);
        if ('listen' in served) {
          reply.hijack();
          streams.open(reply.raw, served.listen.id, session, served.listen.honored);
          return;
        }
        answer = served;
      }
    }
    // The answer's method comes from the one classification above.
    if (message.method !== undefined) {
      if (logger.isLevelEnabled('debug')) {
        request.log.debug(
          { method: message.method, status: answer.status },
          'mcp request answered',
        );
      }
      options.onAnswered?.(session, message.method, answer.status);
    }
    if (answer.body === undefined) return reply.code(answer.status).send();
    if (answer.status === 200 && wantsEventStreamOnly(headerOf(request, 'accept'))) {
      const event =
        typeof answer.body === 'string'
          ? `event: message\ndata: ${answer.body}\n\n`
          : Buffer.concat([SSE_HEAD, answer.body, SSE_TAIL]);
      return reply.code(200).type('text/event-stream').send(event);
    }
    return reply.code(answer.status).type('application/json').send(answer.body);
  });

  return {
    app,
    inFlight,
    shutdown() {
      sessionCache.close();
      streams.closeAll();
      inFlight.abortAll('shutdown');
    },
  };
}
