/**
 * A small hand-made OAuth authorization server for what a real one cannot be made to do on
 * demand: a wrong `iss` in the redirect, no PKCE in its metadata, no registration
 * endpoint, a client ID metadata document, refresh-token rotation on every refresh with
 * reuse detection (a reused token revokes the grant), being down during refreshes
 * (connection refused, or 503), token lifetimes, and counts of what it did. Access tokens
 * are JWTs (`typ at+jwt`, audience = the requested resource) signed with its key, served at
 * `/jwks`, so `startProtectedMcp` validates them. Sign-in is immediate (no login page):
 * `signIn` returns the redirect its authorization endpoint answers, without calling it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { closeServer, createServer, listenLoopback } from './listen.js';

/** The knobs; all may be changed while it runs (`as.knobs.x = ...`, `down` by `setDown`). */
export interface FixtureAsKnobs {
  /** Advertise `code_challenge_methods_supported: ['S256']` (default true). */
  pkce: boolean;
  /** Serve its RFC 8414 metadata (default true). */
  metadata: boolean;
  /** Offer dynamic client registration (default true). */
  registration: boolean;
  /** Refuse every registration with 400 `invalid_client_metadata` (default false). */
  refuseRegistration: boolean;
  /** Advertise `client_id_metadata_document_supported` (default false). */
  clientMetadataDocuments: boolean;
  /** The `iss` put in the authorization redirect (default the issuer). */
  redirectIss: string | undefined;
  /** Answer the authorization with this `error` instead of a code. */
  denyWith: string | undefined;
  /** Access-token lifetime in seconds (default 3600). */
  accessTokenTtl: number;
  /**
   * `refused`: the port is closed; `503`: the token endpoint answers 503; `hang`: it takes
   * refreshes and never answers (until up again); false: up (use `setDown`).
   */
  down: false | 'refused' | '503' | 'hang';
}

/** What it did, for assertions. */
export interface FixtureAsCounts {
  registrations: number;
  codeExchanges: number;
  refreshes: number;
  refreshFailures: number;
  revocations: number;
}

/** A running fixture authorization server. */
export interface FixtureAs {
  readonly issuer: string;
  readonly knobs: FixtureAsKnobs;
  readonly counts: FixtureAsCounts;
  /** Every token pair issued, in order (access and refresh token). */
  readonly issued: { accessToken: string; refreshToken: string }[];
  /** Client ids registered or preregistered. */
  readonly clients: Set<string>;
  /** Makes it down (`refused`: its port closes; `503`: refreshes answer 503) or up again (false). */
  setDown(mode: FixtureAsKnobs['down']): Promise<void>;
  /** Parameters of the last authorization request. */
  lastAuthorization: URLSearchParams | undefined;
  /** The last request's form to the token endpoint, without secrets' values. */
  lastTokenRequest: URLSearchParams | undefined;
  /** Follows `authorizationUrl`; resolves with the redirect URL (code, state, iss) it answers. */
  signIn(authorizationUrl: string): Promise<URL>;
  /** Forgets every client (a server that dropped its registrations): `invalid_client` from then on. */
  forgetClients(): void;
  /** True while the refresh token is live (not consumed, revoked or part of a revoked grant). */
  refreshTokenLive(token: string): boolean;
  close(): Promise<void>;
}

interface Grant {
  revoked: boolean;
  scope: string;
  resource: string;
  clientId: string;
}

/** Starts the server on 127.0.0.1; `preregistered` client ids are known without registration. */
export async function startFixtureAs(
  knobs: Partial<FixtureAsKnobs> = {},
  preregistered: readonly string[] = [],
): Promise<FixtureAs> {
  const server = createServer();
  const port = await listenLoopback(server);
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'fixture', alg: 'RS256', use: 'sig' };
  const settings: FixtureAsKnobs = {
    pkce: true,
    metadata: true,
    registration: true,
    refuseRegistration: false,
    clientMetadataDocuments: false,
    redirectIss: undefined,
    denyWith: undefined,
    accessTokenTtl: 3600,
    down: false,
    ...knobs,
  };
  /** Refreshes taken and never answered while it hangs. */
  const hanging = new Set<ServerResponse>();
  const counts: FixtureAsCounts = {
    registrations: 0,
    codeExchanges: 0,
    refreshes: 0,
    refreshFailures: 0,
    revocations: 0,
  };
  const clients = new Set(preregistered);
  const codes = new Map<
    string,
    { challenge: string; redirectUri: string; clientId: string; scope: string; resource: string }
  >();
  /** Refresh token -> its grant, and whether it was used already. */
  const refreshTokens = new Map<string, { grant: Grant; consumed: boolean }>();
  const issued: { accessToken: string; refreshToken: string }[] = [];

  const metadata = () => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    revocation_endpoint: `${issuer}/revoke`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    scopes_supported: ['mcp:tools', 'offline_access'],
    authorization_response_iss_parameter_supported: true,
    ...(settings.registration ? { registration_endpoint: `${issuer}/register` } : {}),
    ...(settings.pkce ? { code_challenge_methods_supported: ['S256'] } : {}),
    ...(settings.clientMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
  });

  async function issue(grant: Grant): Promise<object> {
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT({ scope: grant.scope, client_id: grant.clientId })
      .setProtectedHeader({ alg: 'RS256', kid: 'fixture', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(grant.resource)
      .setSubject('alice')
      .setIssuedAt(now)
      .setExpirationTime(now + settings.accessTokenTtl)
      .setJti(randomBytes(8).toString('hex'))
      .sign(privateKey);
    const refreshToken = `rt-${randomBytes(24).toString('base64url')}`;
    refreshTokens.set(refreshToken, { grant, consumed: false });
    issued.push({ accessToken, refreshToken });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: settings.accessTokenTtl,
      refresh_token: refreshToken,
      scope: grant.scope,
    };
  }

  const json = (res: ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const readForm = async (req: IncomingMessage): Promise<URLSearchParams> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return new URLSearchParams(Buffer.concat(chunks).toString());
  };

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const shown = new URLSearchParams(form);
    for (const secret of ['code', 'code_verifier', 'refresh_token', 'client_secret']) {
      if (shown.has(secret)) shown.set(secret, '(given)');
    }
    fixture.lastTokenRequest = shown;
    const clientId = form.get('client_id') ?? '';
    if (!clients.has(clientId)) return json(res, 401, { error: 'invalid_client' });
    if (form.get('grant_type') === 'authorization_code') {
      const entry = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (
        !entry ||
        entry.clientId !== clientId ||
        entry.challenge !== challenge ||
        entry.redirectUri !== form.get('redirect_uri')
      ) {
        return json(res, 400, { error: 'invalid_grant' });
      }
      counts.codeExchanges += 1;
      const resource = form.get('resource') ?? entry.resource;
      return json(
        res,
        200,
        await issue({ revoked: false, scope: entry.scope, resource, clientId }),
      );
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (settings.down === 'hang') {
        counts.refreshFailures += 1;
        hanging.add(res);
        return;
      }
      if (settings.down === '503') {
        counts.refreshFailures += 1;
        res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>maintenance</h1>');
        return;
      }
      const entry = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!entry || entry.grant.revoked || entry.grant.clientId !== clientId) {
        counts.refreshFailures += 1;
        return json(res, 400, { error: 'invalid_grant' });
      }
      if (entry.consumed) {
        // Reuse of a rotated token: the whole grant is revoked (RFC 9700 4.14.2).
        entry.grant.revoked = true;
        counts.refreshFailures += 1;
        return json(res, 400, { error: 'invalid_grant' });
      }
      entry.consumed = true;
      counts.refreshes += 1;
      return json(res, 200, await issue(entry.grant));
    }
    return json(res, 400, { error: 'unsupported_grant_type' });
  }

  server.on('request', (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', issuer);
      if (url.pathname === '/.well-known/oauth-authorization-server' && settings.metadata) {
        return json(res, 200, metadata());
      }
      if (url.pathname === '/jwks') return json(res, 200, { keys: [publicJwk] });
      if (url.pathname === '/register' && settings.registration && req.method === 'POST') {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
        if (settings.refuseRegistration) {
          return json(res, 400, {
            error: 'invalid_client_metadata',
            error_description: `refused ${JSON.stringify(body)}`,
          });
        }
        counts.registrations += 1;
        const clientId = `dyn-${randomBytes(6).toString('hex')}`;
        clients.add(clientId);
        return json(res, 201, { ...body, client_id: clientId });
      }
      if (url.pathname === '/authorize') {
        const params = url.searchParams;
        fixture.lastAuthorization = params;
        const redirect = new URL(params.get('redirect_uri') ?? '');
        redirect.searchParams.set('state', params.get('state') ?? '');
        redirect.searchParams.set('iss', settings.redirectIss ?? issuer);
        if (settings.denyWith) {
          redirect.searchParams.set('error', settings.denyWith);
          redirect.searchParams.set('error_description', 'the user said no to <script>');
        } else {
          if (!clients.has(params.get('client_id') ?? '')) {
            return json(res, 400, { error: 'invalid_client' });
          }
          const code = randomBytes(16).toString('base64url');
          codes.set(code, {
            challenge: params.get('code_challenge') ?? '',
            redirectUri: params.get('redirect_uri') ?? '',
            clientId: params.get('client_id') ?? '',
            scope: (params.get('scope') ?? '')
              .split(' ')
              .filter((scope) => scope !== 'offline_access')
              .join(' '),
            resource: params.get('resource') ?? '',
          });
          redirect.searchParams.set('code', code);
        }
        res.writeHead(302, { location: redirect.href }).end();
        return;
      }
      if (url.pathname === '/token' && req.method === 'POST') return token(req, res);
      if (url.pathname === '/revoke' && req.method === 'POST') {
        const form = await readForm(req);
        const entry = refreshTokens.get(form.get('token') ?? '');
        if (entry && entry.grant.clientId === form.get('client_id')) {
          entry.grant.revoked = true;
          counts.revocations += 1;
        }
        res.writeHead(200).end();
        return;
      }
      res.writeHead(404).end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  let listening = true;
  const fixture: FixtureAs = {
    issuer,
    knobs: settings,
    async setDown(mode) {
      settings.down = mode;
      if (mode !== 'hang') endHanging();
      await setListening(mode !== 'refused');
    },
    counts,
    issued,
    clients,
    lastAuthorization: undefined,
    lastTokenRequest: undefined,
    async signIn(authorizationUrl) {
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      await response.arrayBuffer().catch(() => undefined);
      const location = response.headers.get('location');
      if (!location) throw new Error(`the authorization endpoint answered ${response.status}`);
      return new URL(location);
    },
    forgetClients() {
      clients.clear();
    },
    refreshTokenLive(refreshToken) {
      const entry = refreshTokens.get(refreshToken);
      return entry !== undefined && !entry.consumed && !entry.grant.revoked;
    },
    async close() {
      endHanging();
      if (listening) await closeServer(server);
      listening = false;
    },
  };

  function endHanging(): void {
    for (const res of hanging) res.destroy();
    hanging.clear();
  }

  let toggling = Promise.resolve();
  function setListening(up: boolean): Promise<void> {
    toggling = toggling.then(async () => {
      if (up && !listening) {
        await listenLoopback(server, port);
        listening = true;
      } else if (!up && listening) {
        await closeServer(server);
        listening = false;
      }
    });
    return toggling;
  }
  if (settings.down === 'refused') await setListening(false);
  return fixture;
}
