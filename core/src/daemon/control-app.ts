/**
 * The daemon's control API: loopback fastify app, JSON, every endpoint behind
 * `Authorization: Bearer <control token>` (constant-time check) and a loopback Host; a
 * route whose config says `ownAuth` (the dashboard's) checks its own credential instead.
 * Errors answer `{ error: { code, message } }` with the code's HTTP status; request logs
 * carry no headers, so neither the control token nor a credential is ever logged. A JSON
 * content type with no body is no body (a `DELETE` from a client that always sends the
 * header); a body that is not JSON is a bad request in this API's own words.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { checkHost, checkOrigin } from '../server/guards.js';
import { bearerTokenOf } from '../server/session-cache.js';

/** Default largest control request body (a path, a credential, a session request). */
export const CONTROL_BODY_LIMIT = 256 * 1024;

/** Options of {@link buildControlApp}. */
export interface ControlAppOptions {
  readonly controlToken: string;
  /** The bound port, for the Host check (known after listen). */
  readonly port: () => number;
  readonly logger?: Logger;
  /** Largest accepted request body in bytes (default {@link CONTROL_BODY_LIMIT}). */
  readonly bodyLimit?: number;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Parses `value` with `schema`, or throws TUTTI_ERR_CONTROL_BAD_REQUEST naming the field. */
export function parseBody<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : 'body';
  throw new TuttiError('TUTTI_ERR_CONTROL_BAD_REQUEST', {
    field,
    problem: issue?.message ?? 'invalid',
  });
}

/** TUTTI_ERR_CONTROL_BAD_REQUEST for the request's `field`, with `problem`. */
function badRequest(field: string, problem: string): TuttiError {
  return new TuttiError('TUTTI_ERR_CONTROL_BAD_REQUEST', { field, problem });
}

const POISONED = 'it holds a "__proto__" or "constructor.prototype" key, which is refused';

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses JSON bodies as fastify does (prototype poisoning refused), except that an empty
 * body is none, and that a body that is not JSON answers in this API's words: without the
 * body's text, which may hold a credential.
 */
function acceptJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (!error) return done(null, value);
      done(badRequest('body', isJson(text) ? POISONED : 'it is not valid JSON'), undefined);
    });
  });
}

/** The app with auth, Host check and error mapping; endpoints are added by the caller. */
export function buildControlApp(options: ControlAppOptions): FastifyInstance {
  const expected = digest(options.controlToken);
  const bodyLimit = options.bodyLimit ?? CONTROL_BODY_LIMIT;
  const app = Fastify({
    bodyLimit,
    logController: new LogController({ disableRequestLogging: true }),
    // The router refuses a path segment over 100 characters or a broken percent-encoding
    // before any hook runs; answer those in this API's error shape too.
    frameworkErrors: (error, _request, reply) => {
      const bad = new TuttiError('TUTTI_ERR_CONTROL_BAD_REQUEST', {
        field: 'url',
        problem:
          error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? 'a path segment is too long'
            : 'the path is not a valid URL path',
      });
      return (reply as FastifyReply).code(error.statusCode ?? bad.status).send(errorBody(bad));
    },
    ...(options.logger && {
      loggerInstance: options.logger.child({ component: 'control-api' }) as FastifyBaseLogger,
    }),
  });

  acceptJsonBodies(app);

  app.addHook('onRequest', async (request, reply) => {
    const badHost = checkHost(request.headers.host, options.port());
    if (badHost) return reply.code(badHost.status).send(errorBody(badHost));
    const badOrigin = checkOrigin(request.headers.origin);
    if (badOrigin) return reply.code(badOrigin.status).send(errorBody(badOrigin));
    // The dashboard's routes check their own credential (a cookie) and a stricter Origin.
    if ((request.routeOptions.config as { ownAuth?: boolean }).ownAuth === true) return;
    const token = bearerTokenOf(request.headers.authorization);
    if (token === undefined || !timingSafeEqual(digest(token), expected)) {
      const error = new TuttiError('TUTTI_ERR_CONTROL_UNAUTHORIZED');
      return reply.code(error.status).send(errorBody(error));
    }
  });

  app.setErrorHandler((error, request, reply) => {
    if (isTuttiError(error)) return reply.code(error.status).send(errorBody(error));
    if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const tooLarge = new TuttiError('TUTTI_ERR_CONTROL_BODY_TOO_LARGE', { limit: bodyLimit });
      return reply.code(tooLarge.status).send(errorBody(tooLarge));
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      const bad =
        (error as { code?: string }).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? badRequest(
              'content-type',
              `"${(request.headers['content-type'] ?? '').slice(0, 100)}" is not taken: send a JSON body with content-type application/json`,
            )
          : badRequest('body', (error as Error).message);
      return reply.code(status).send(errorBody(bad));
    }
    request.log.error({ err: (error as Error).message, url: request.url }, 'control API error');
    const internal = new TuttiError('TUTTI_ERR_CONTROL_INTERNAL');
    return reply.code(internal.status).send(errorBody(internal));
  });

  app.setNotFoundHandler((request, reply) => {
    const error = new TuttiError('TUTTI_ERR_CONTROL_NOT_FOUND', {
      what: `${request.method} ${request.url.split('?')[0]}`,
    });
    return reply.code(error.status).send(errorBody(error));
  });
  return app;
}

/** The JSON error body of a TuttiError. */
export function errorBody(error: TuttiError): { error: { code: string; message: string } } {
  return { error: { code: error.code, message: error.message } };
}
