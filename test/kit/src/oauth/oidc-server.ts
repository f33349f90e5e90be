/**
 * A real authorization server for OAuth tests: oidc-provider on 127.0.0.1 (port 0) with
 * open dynamic client registration (RFC 7591), PKCE required, resource indicators
 * (RFC 8707: JWT access tokens whose audience is the MCP URL, TTL of a few seconds),
 * refresh-token rotation (public clients), revocation (RFC 7009) and `offline_access`.
 * Sign-in is headless: interactions log in `alice` and consent at once; `signIn` follows
 * the authorization URL with a cookie jar to the redirect URI and returns that URL (code,
 * state, iss) without calling it. oidc-provider warns "Unsupported runtime" on Node 20
 * and works.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
// @ts-expect-error: oidc-provider ships no type declarations (its API is typed below)
import ProviderClass from 'oidc-provider';
import { closeServer, createServer, listenLoopback } from './listen.js';

/** The part of oidc-provider's Provider this fixture uses. */
interface Provider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  on(event: string, listener: (...args: unknown[]) => void): void;
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{
    grantId?: string;
    prompt: {
      name: string;
      details: { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    };
    params: { client_id: string };
    session?: { accountId: string };
  }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: object,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  Grant: {
    new (init: { accountId: string; clientId: string }): ProviderGrant;
    find(id: string): Promise<ProviderGrant | undefined>;
  };
}

interface ProviderGrant {
  addOIDCScope(scope: string): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
  destroy(): Promise<void>;
}

/** Options of {@link startOidcServer}. */
export interface OidcServerOptions {
  /** Access-token lifetime in seconds (default 2). */
  readonly accessTokenTtl?: number;
  /** Scopes of the MCP resource (default `['mcp:tools']`). */
  readonly resourceScopes?: readonly string[];
}

/** A running oidc-provider; see the module doc. */
export interface OidcServer {
  readonly issuer: string;
  /** Provider events seen: `grant.revoked`, `refresh_token.consumed`, `grant.error:<code>`, `server_error`. */
  readonly events: string[];
  /** Follows `authorizationUrl` headlessly; resolves with the redirect (code, state, iss), not called. */
  signIn(authorizationUrl: string): Promise<URL>;
  /** Revokes every grant the server issued (as a user removing the app's access would). */
  revokeGrants(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the server; see the module doc. */
export async function startOidcServer(options: OidcServerOptions = {}): Promise<OidcServer> {
  const server = createServer();
  const port = await listenLoopback(server);
  const issuer = `http://127.0.0.1:${port}`;
  const scopes = options.resourceScopes ?? ['mcp:tools'];
  const ttl = options.accessTokenTtl ?? 2;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'kit-key', alg: 'RS256', use: 'sig' };
  const events: string[] = [];
  const grantIds = new Set<string>();
  const provider: Provider = new ProviderClass(issuer, {
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-kit-cookie-key'] },
    scopes: ['openid', 'offline_access', ...scopes],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf: unknown) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: scopes.join(' '),
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: ttl,
      RefreshToken: 3600,
      Grant: 3600,
      Session: 3600,
      Interaction: 600,
      AuthorizationCode: 60,
    },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub }),
    }),
  });
  provider.on('server_error', () => events.push('server_error'));
  provider.on('grant.revoked', () => events.push('grant.revoked'));
  provider.on('refresh_token.consumed', () => events.push('refresh_token.consumed'));
  provider.on('grant.error', (_ctx, error) =>
    events.push(`grant.error:${(error as { error?: string }).error}`),
  );
  const callback = provider.callback();

  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: 'alice' } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
      new provider.Grant({
        accountId: details.session?.accountId ?? 'alice',
        clientId: details.params.client_id,
      });
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, wanted] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, wanted.join(' '));
    }
    const grantId = await grant.save();
    grantIds.add(grantId);
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interact(req, res).catch((error: Error) => {
        events.push('interaction_error');
        res.statusCode = 500;
        res.end(error.message);
      });
      return;
    }
    callback(req, res);
  });

  return {
    issuer,
    events,
    async signIn(authorizationUrl) {
      const jar = new Map<string, string>();
      let url = authorizationUrl;
      const redirectPrefix = new URL(authorizationUrl).searchParams.get('redirect_uri') ?? '';
      for (let hop = 0; hop < 15; hop++) {
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        const response = await fetch(url, { redirect: 'manual', headers: { cookie } });
        for (const set of response.headers.getSetCookie()) {
          const [pair = ''] = set.split(';');
          const at = pair.indexOf('=');
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const location = response.headers.get('location');
        await response.arrayBuffer().catch(() => undefined);
        if (!location)
          throw new Error(`no redirect from ${new URL(url).pathname}: ${response.status}`);
        url = new URL(location, url).href;
        const next = new URL(url);
        const prefix = new URL(redirectPrefix);
        if (next.origin === prefix.origin && next.pathname === prefix.pathname) return next;
      }
      throw new Error('the sign-in did not reach the redirect URI in 15 redirects');
    },
    async revokeGrants() {
      for (const grantId of grantIds) {
        const grant = await provider.Grant.find(grantId);
        await grant?.destroy();
      }
    },
    close: () => closeServer(server),
  };
}
