/**
 * Sign-in to a remote connector's server, with the daemon as its OAuth client (RFC 8252:
 * a native app with a loopback redirect). `POST /v1/connectors/{key}/authorize` begins one
 * and answers the URL to open; the authorization server sends the browser back to
 * `GET /oauth/callback` on this port, outside `/v1/*` and without the bearer token: its
 * single-use `state` is what protects it. The page it answers says the outcome in fixed
 * words (never a code or token), is never cached, and sends no referrer (the URL it came
 * from holds the code).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isTuttiError, TuttiError } from '../errors/index.js';
import type { OAuthClients, SignInAnswer } from '../oauth/types.js';
import { type ConnectorRuntime, signInTarget } from '../runtime/index.js';
import type { ConnectorStore } from '../store/index.js';

/** What the sign-in endpoints act on. */
export interface SignInContext {
  readonly store: ConnectorStore;
  readonly runtime: ConnectorRuntime;
  readonly oauth: OAuthClients;
}

/** The path the authorization server redirects to (the redirect URI's path). */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';

const ANSWER_FIELDS = ['state', 'code', 'iss', 'error', 'error_description'] as const;

/** The callback's query, each field a single string of bounded length, or absent. */
function answerOf(query: unknown): SignInAnswer {
  const answer: Record<string, string> = {};
  for (const field of ANSWER_FIELDS) {
    const value = (query as Record<string, unknown> | undefined)?.[field];
    if (typeof value === 'string' && value.length <= 4_096) answer[field] = value;
  }
  return answer;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The callback's page: a title and one paragraph, no script, no outside resource. */
function page(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .header('x-frame-options', 'DENY')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
        '<style>body{font:16px system-ui,sans-serif;margin:3em auto;max-width:36em;padding:0 1em}</style>' +
        `</head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`,
    );
}

/** Adds the sign-in endpoints to `app`. */
export function registerSignInEndpoints(app: FastifyInstance, ctx: SignInContext): void {
  const { store, runtime, oauth } = ctx;

  app.post('/v1/connectors/:key/authorize', async (request) => {
    const { key } = request.params as { key: string };
    const release = store.get(key);
    if (!release) throw new TuttiError('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR', { key });
    const credential = await store.credential(key).catch(() => undefined);
    const target = signInTarget(release, credential);
    if (!target) throw new TuttiError('TUTTI_ERR_OAUTH_NOT_REMOTE', { key });
    return oauth.beginSignIn(target);
  });

  app.get(OAUTH_CALLBACK_PATH, { config: { ownAuth: true } }, async (request, reply) => {
    try {
      const key = await oauth.completeSignIn(answerOf(request.query));
      const status = await runtime.signedIn(key);
      const name = store.get(key)?.manifest.name ?? key;
      const outcome =
        status?.state === 'ready'
          ? `${name} is ready: its ${status.toolCount} tools are served to your agents.`
          : `${name} is starting with the new sign-in; the dashboard shows when it is ready.`;
      return page(reply, 200, `Signed in to ${name}`, `${outcome} You can close this tab.`);
    } catch (error) {
      if (!isTuttiError(error)) {
        request.log.error({ err: (error as Error)?.message }, 'a sign-in failed');
        return page(
          reply,
          500,
          'Sign-in failed',
          'The daemon failed to finish the sign-in: see its log, then start the sign-in again.',
        );
      }
      return page(reply, error.status, 'Sign-in failed', `${error.message} (${error.code})`);
    }
  });
}
