/**
 * The fastify app of the loopback `connector` server, without its socket: the edge of the
 * call path. Guards and auth run as hooks; the POST-only `/mcp/connector` endpoint classifies
 * each body once (inbound-message.ts), hands requests to their era's surface with the
 * request's cancellation, and writes the answer, converting a thrown error to JSON-RPC
 * here and only here (json-rpc.ts): as plain JSON, or as a stream when the call relayed
 * progress or an upstream's question first (call-relays.ts). A POSTed response answers
 * such a question (elicitation-relay.ts). Everything the server remembers between
 * requests is made in {@link buildConnectorApp} and belongs to that one app.
 * Tests drive it with `app.inject()`; {@link createConnectorServer} binds it to 127.0.0.1.
 */
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { TokenSession } from '../auth/index.js';
import { TuttiError } from '../errors/index.js';
import { isPlainObject } from '../util/objects.js';
import {
  CONNECTOR_ENDPOINT,
  DEFAULT_BODY_LIMIT,
  DEFAULT_ELICITATION_TIMEOUT_MS,
  LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_MAX_ARGUMENT_DEPTH,
  DEFAULT_MAX_LISTEN_STREAMS_PER_TOKEN,
  DEFAULT_PAGE_SIZE,
} from './constants.js';
import { createCallPreparation } from './call-relays.js';
import { type CallStream, createEventStreamOnlyCheck, oneEvent } from './call-stream.js';
import { createElicitationBoard, type ElicitationBoard } from './elicitation-board.js';
import { createElicitationRelay } from './elicitation-relay.js';
import type { ObservedCall, ToolCallObserver } from './call-observer.js';
import { checkHost, checkOrigin } from './guards.js';
import { type AbortCause, createInFlightCalls, type InFlightCalls } from './in-flight-calls.js';
import { classifyInbound, createEnvelopeVerdicts, type InboundRequest } from './inbound-message.js';
import { bodyErrorOf, errorResponse, resultResponse, rpcErrorOf } from './json-rpc.js';
import { lazyChildLoggerFactory } from './lazy-child-logger.js';
import { createLegacySurface } from './legacy-surface.js';
import { createListenStreams } from './listen-streams.js';
import { createServerLogger } from './logger.js';
import { createModernSurface, type ListenStart } from './modern-surface.js';
import { createSessionCache } from './session-cache.js';
import type { RequestScope, SurfaceResult } from './surface.js';
import { createTools } from './tool-call.js';

import type { ConnectorServerOptions } from './server-options.js';

export type { ConnectorServerOptions };

/** The app plus the hooks its owner needs at shutdown. */
export interface ConnectorApp {
  readonly app: FastifyInstance;
  /** Ends every listen stream and aborts every in-flight call. */
  shutdown(): void;
  /** Running requests (for tests and the debug endpoint). */
  readonly inFlight: InFlightCalls;
  /** The elicitations relayed to agents and not answered yet, per agent session. */
  readonly elicitations: ElicitationBoard;
}

/**
 * An answer of the POST endpoint: an HTTP status and a JSON body (text or UTF-8 bytes);
 * with `stream`, the body goes out as the last event of that stream once it started.
 */
interface Answer {
  readonly status: number;
  readonly body: string | Buffer;
  readonly stream?: CallStream;
}

/** A request header as one string, or undefined. */
function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Bytes of a result's JSON text. */
function resultLength(result: SurfaceResult): number {
  if (typeof result === 'string') return Buffer.byteLength(result);
  let length = 0;
  for (const chunk of result) length += chunk.length;
  return length;
}

/** The protocol version a request came in: its era's, or the legacy header's. */
function protocolOf(message: InboundRequest, request: FastifyRequest): string {
  if (message.era === 'modern') return MODERN_PROTOCOL_VERSION;
  const header = headerOf(request, 'mcp-protocol-version');
  return header !== undefined && LEGACY_PROTOCOL_VERSIONS.includes(header)
    ? header
    : LEGACY_PROTOCOL_VERSION;
}

/** Tells `observer` a `tools/call` arrived: its handle on the call. */
function observe(
  observer: ToolCallObserver,
  message: InboundRequest,
  session: TokenSession,
  request: FastifyRequest,
): ObservedCall | undefined {
  return observer.begin({
    session,
    protocol: protocolOf(message, request),
    requestId: message.id,
    params: message.params,
    headers: request.headers,
    startedAt: performance.now(),
  });
}

/** Answers a guard refusal: the tutti error's status, a JSON-RPC error body. */
function refuse(reply: FastifyReply, error: TuttiError): FastifyReply {
  const wire = rpcErrorOf(error)!;
  return reply.code(wire.httpStatus).type('application/json').send(errorResponse(null, wire));
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
  // The state of this server, and of no other in the process.
  const inFlight = createInFlightCalls();
  const streams = createListenStreams({
    registry: options.registry,
    tokens: options.tokens,
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    maxPerToken: options.maxListenStreamsPerToken ?? DEFAULT_MAX_LISTEN_STREAMS_PER_TOKEN,
    logger,
  });
  const sessionCache = createSessionCache(options.tokens);
  const verdicts = createEnvelopeVerdicts();
  const tools = createTools({
    registry: options.registry,
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    maxArgumentDepth: options.maxArgumentDepth ?? DEFAULT_MAX_ARGUMENT_DEPTH,
  });
  const elicitations = createElicitationBoard();
  const relay = createElicitationRelay({
    tokens: options.tokens,
    board: elicitations,
    timeoutMs: options.elicitationTimeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS,
    logger,
  });
  const prepareCall = createCallPreparation(relay, options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
  const legacy = createLegacySurface(options.registry, tools);
  // The questions parked in `input_required` answers are on the board as the streamed ones are.
  const modern = createModernSurface(options.registry, tools, {
    ...options,
    onRelay: (record) => elicitations.relay(record),
  });
  const observer = options.observer && modern.observing(options.observer);
  const wantsEventStreamOnly = createEventStreamOnlyCheck();

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
      if (error.code?.startsWith('FST_ERR_CTP_'))
        return refuse(reply, bodyErrorOf(error, bodyLimit));
      request.log.error({ err: error }, 'connector server request failed');
      return refuse(reply, new TuttiError('TUTTI_ERR_SERVER_INTERNAL'));
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

  /**
   * Serves one classified request under its own cancellation: the client closing the
   * response, a `notifications/cancelled` naming it, or shutdown aborts it. Undefined when
   * a listen stream took the response over.
   */
  const serve = async (
    message: InboundRequest,
    session: TokenSession,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<Answer | undefined> => {
    const call = inFlight.start(session.tokenId, message.id);
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) call.signal.abort('disconnected');
    });
    const isCall = message.method === 'tools/call';
    const observed = isCall && observer ? observe(observer, message, session, request) : undefined;
    const streamable = isCall
      ? prepareCall(message, session, call.signal, headerOf(request, 'accept'), reply)
      : undefined;
    const stream = streamable?.stream;
    try {
      const scope: RequestScope = streamable
        ? { signal: call.signal, headers: request.headers, session, observed, ...streamable.relays }
        : { signal: call.signal, headers: request.headers, session, observed };
      const served =
        message.era === 'legacy' ? await legacy(message, scope) : await modern(message, scope);
      const listen = (served as Partial<ListenStart>).listen;
      if (listen === undefined) {
        observed?.answered({ resultBytes: resultLength(served as SurfaceResult), aborted: false });
        if (message.method === 'initialize') relay.remember(session.tokenId, message.params);
        const body = resultResponse(message.id, served as SurfaceResult);
        return stream?.started ? { status: 200, body, stream } : { status: 200, body };
      }
      // open() refuses a token over its stream limit before writing: then the catch answers.
      streams.open(reply.raw, message.id, session, listen);
      reply.hijack();
      return undefined;
    } catch (error) {
      const wire = rpcErrorOf(error, call.signal.reason === ('shutdown' satisfies AbortCause));
      observed?.answered({
        error,
        ...(wire && { rpcCode: wire.code }),
        resultBytes: 0,
        aborted: call.signal.aborted,
      });
      if (!wire && !stream?.started) throw error;
      if (!wire) request.log.error({ err: error }, 'connector server request failed');
      const sent = wire ?? rpcErrorOf(new TuttiError('TUTTI_ERR_SERVER_INTERNAL'))!;
      const body = errorResponse(message.id, sent);
      // Once the stream started, an error is its last event (its HTTP status went out as 200).
      return stream?.started ? { status: 200, body, stream } : { status: sent.httpStatus, body };
    } finally {
      streamable?.end();
      stream?.seal();
      call.done();
    }
  };

  app.post(CONNECTOR_ENDPOINT, { onRequest: authenticate }, async (request, reply) => {
    const session = sessions.get(request)!;
    const message = classifyInbound(
      request.body,
      {
        protocolVersion: headerOf(request, 'mcp-protocol-version'),
        mcpMethod: headerOf(request, 'mcp-method'),
        mcpName: headerOf(request, 'mcp-name'),
      },
      verdicts,
    );
    let answer: Answer | undefined;
    switch (message.kind) {
      case 'notification': {
        const requestId = isPlainObject(message.params) ? message.params.requestId : undefined;
        if (
          message.method === 'notifications/cancelled' &&
          (typeof requestId === 'string' || typeof requestId === 'number') &&
          inFlight.cancel(session.tokenId, requestId, 'cancelled')
        ) {
          request.log.debug({ requestId }, 'request cancelled by the client');
        }
        return reply.code(202).send();
      }
      case 'response':
        if (!relay.answer(session.tokenId, message) && logger.isLevelEnabled('debug')) {
          // Nothing of it is logged: it may hold what the person typed.
          request.log.debug('response to no pending elicitation ignored');
        }
        return reply.code(202).send();
      case 'rejected':
        answer = {
          status: message.error.httpStatus,
          body: errorResponse(message.id, message.error),
        };
        break;
      case 'request':
        answer = await serve(message, session, request, reply);
        if (answer === undefined) return;
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
    if (answer.stream !== undefined) {
      answer.stream.end(answer.body);
      return;
    }
    if (answer.status === 200 && wantsEventStreamOnly(headerOf(request, 'accept'))) {
      return reply.code(200).type('text/event-stream').send(oneEvent(answer.body));
    }
    return reply.code(answer.status).type('application/json').send(answer.body);
  });

  return {
    app,
    inFlight,
    elicitations,
    shutdown() {
      sessionCache.close();
      streams.closeAll();
      inFlight.abortAll('shutdown');
      relay.close();
      modern.close();
    },
  };
}
