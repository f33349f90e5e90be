/**
 * `createOAuthClients`: the daemon as the OAuth client of remote MCP connectors (the MCP
 * authorization spec). Sign-in: discovery (discovery.ts), the client to sign in as
 * (client-registration.ts), PKCE S256 with the verifier in memory, a single-use random
 * `state` valid 10 minutes, the RFC 8707 `resource` on every authorize/token request, the
 * RFC 9207 `iss` checked; the refresh token goes to the vault before the sign-in resolves.
 * Afterwards each connector's tokens keep themselves valid (connector-grant.ts).
 * `forget` revokes at the server (RFC 7009) and deletes every stored trace. Codes,
 * tokens, verifiers and client secrets never reach a log, an error or an event.
 */
import { randomBytes } from 'node:crypto';
import {
  exchangeAuthorization,
  type FetchLike,
  type OAuthTokens,
  startAuthorization,
  validateAuthorizationResponseIssuer,
} from '@modelcontextprotocol/client';
import type { SecretVault } from '../credentials/secret-vault.js';
import { TuttiError } from '../errors/index.js';
import type { SecretRedactor } from '../process/secret-redactor.js';
import { createSecret } from '../store/secret.js';
import { clientInformation, type ResolvedClient, resolveClient } from './client-registration.js';
import { ConnectorGrant, type OAuthLogger } from './connector-grant.js';
import { chooseScope, type Discovered, discover, type RevocationMetadata } from './discovery.js';
import { isClientRejected, oauthReason, safeOAuthCode } from './oauth-errors.js';
import { deleteRecord, readRecord, writeRecord } from './oauth-record.js';
import { revokeToken } from './revoke.js';
import type {
  OAuthClients,
  OAuthConnector,
  SignInAnswer,
  SignInLost,
  SignInStart,
  TransportAuth,
} from './types.js';

/** How long a sign-in's `state` is accepted. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

/** Options of {@link createOAuthClients}. */
export interface OAuthClientsOptions {
  /** Longest wait for one answer of an authorization server (default 30 s). */
  readonly authorizationServerTimeoutMs?: number;
  /** Where refresh tokens and client secrets are kept. */
  readonly vault: SecretVault;
  /** Folder of the non-secret `<key>.oauth.json` records (0600). */
  readonly credentialsDir: string;
  /** The loopback redirect URI of this daemon start, e.g. `http://127.0.0.1:<port>/oauth/callback`. */
  readonly redirectUri: () => string;
  /** An https URL of tutti's client ID metadata document, used where the server supports them. */
  readonly clientMetadataUrl?: string;
  /** The fetch of every request to authorization and resource servers (tests, proxies). */
  readonly fetch?: FetchLike;
  /** Clock of token expiries (ms since the epoch). */
  readonly now?: () => number;
  readonly logger: OAuthLogger;
  /** Every token and client secret held is registered here while held. */
  readonly redactor?: SecretRedactor;
  /** A connector needs a browser sign-in again (grant revoked, client rejected, step-up). */
  readonly onSignInLost: (lost: SignInLost) => void;
  /** A sign-in completed (called after `completeSignIn` resolved). */
  readonly onSignedIn?: (key: string) => void;
}

interface PendingSignIn {
  readonly connector: OAuthConnector;
  readonly discovered: Discovered;
  readonly client: ResolvedClient;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly scope: string | undefined;
  readonly expiresAt: number;
}

/** Longest wait for one answer of an authorization server (discovery, token, revocation). */
export const AUTHORIZATION_SERVER_TIMEOUT_MS = 30_000;

/** `fetchFn` whose requests fail with a TimeoutError after `ms` (with the caller's signal kept). */
function boundedFetch(fetchFn: FetchLike, ms: number): FetchLike {
  return (url, init) => {
    const timeout = AbortSignal.timeout(ms);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return fetchFn(url, { ...init, signal });
  };
}

/**
 * The OAuth engine of one daemon.
 * @example const oauth = createOAuthClients({ vault, credentialsDir, redirectUri: () => url, logger, onSignInLost });
 */
export function createOAuthClients(options: OAuthClientsOptions): OAuthClients {
  const resourceFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  // A request to an authorization server that never answers must not hold a refresh (and
  // every call waiting on it) forever: it fails as unreachable, and the sign-in is kept.
  const fetchFn = boundedFetch(
    resourceFetch,
    options.authorizationServerTimeoutMs ?? AUTHORIZATION_SERVER_TIMEOUT_MS,
  );
  const now = options.now ?? Date.now;
  const { vault, credentialsDir, logger } = options;
  const grants = new Map<string, ConnectorGrant>();
  const pending = new Map<string, PendingSignIn>();
  let closed = false;

  const grantOf = (key: string): ConnectorGrant => {
    let grant = grants.get(key);
    if (!grant) {
      grant = new ConnectorGrant(key, {
        vault,
        credentialsDir,
        fetch: fetchFn,
        resourceFetch,
        now,
        logger,
        ...(options.redactor ? { redactor: options.redactor } : {}),
        onSignInLost: (lost) => {
          try {
            options.onSignInLost(lost);
          } catch (error) {
            logger.warn({ key, err: (error as Error).message }, 'onSignInLost failed');
          }
        },
      });
      if (closed) grant.retire(true);
      grants.set(key, grant);
    }
    return grant;
  };

  const sweep = () => {
    const at = now();
    for (const [state, flow] of pending) if (flow.expiresAt <= at) pending.delete(state);
  };

  async function beginSignIn(connector: OAuthConnector): Promise<SignInStart> {
    sweep();
    const { key } = connector;
    const grant = grantOf(key);
    grant.connector = connector;
    const discovered = await discover(
      key,
      connector.url,
      grant.challenge.resourceMetadataUrl,
      fetchFn,
    );
    const stored = await readRecord(credentialsDir, key);
    const scope = chooseScope(
      grant.stepUpScope ?? grant.challenge.scope,
      connector.auth.scopes,
      discovered,
    );
    const redirectUri = options.redirectUri();
    const client = await resolveClient({
      connector,
      discovered,
      stored,
      vault,
      redirectUri,
      scope,
      clientMetadataUrl: options.clientMetadataUrl,
      fetch: fetchFn,
    });
    const keepScope = stored?.issuer === discovered.issuer ? stored.scope : undefined;
    await writeRecord(credentialsDir, key, {
      version: 1,
      issuer: discovered.issuer,
      authorizationServerUrl: discovered.authorizationServerUrl,
      metadata: discovered.metadata,
      resource: discovered.resource,
      clientId: client.information.client_id,
      clientSource: client.source,
      ...(keepScope ? { scope: keepScope } : {}),
    });
    const state = randomBytes(32).toString('base64url');
    let started: Awaited<ReturnType<typeof startAuthorization>>;
    try {
      started = await startAuthorization(discovered.authorizationServerUrl, {
        metadata: discovered.metadata,
        clientInformation: client.information,
        redirectUrl: redirectUri,
        state,
        resource: discovered.resource,
        ...(scope ? { scope } : {}),
      });
    } catch (error) {
      throw new TuttiError(
        'TUTTI_ERR_OAUTH_DISCOVERY_FAILED',
        { key, reason: 'the server does not offer the authorization code flow' },
        { cause: error },
      );
    }
    const expiresAt = now() + SIGN_IN_TTL_MS;
    pending.set(state, {
      connector,
      discovered,
      client,
      codeVerifier: started.codeVerifier,
      redirectUri,
      scope,
      expiresAt,
    });
    logger.info({ key, issuer: discovered.issuer, client: client.source }, 'oauth sign-in begun');
    return {
      authorizationUrl: started.authorizationUrl.href,
      expiresAt: new Date(expiresAt).toISOString(),
    };
  }

  async function completeSignIn(answer: SignInAnswer): Promise<string> {
    sweep();
    const flow = answer.state === undefined ? undefined : pending.get(answer.state);
    // Single use: the state is spent whatever happens next.
    if (answer.state !== undefined) pending.delete(answer.state);
    if (!flow) throw new TuttiError('TUTTI_ERR_OAUTH_STATE_INVALID');
    const { connector, discovered, client } = flow;
    const { key } = connector;
    if (answer.error !== undefined) {
      // The code only: error_description is the server's free text and may echo input.
      const reason = safeOAuthCode(answer.error) ?? 'an unrecognised error';
      throw new TuttiError('TUTTI_ERR_OAUTH_AUTHORIZATION_DENIED', { key, reason });
    }
    try {
      validateAuthorizationResponseIssuer({
        iss: answer.iss,
        expectedIssuer: discovered.issuer,
        issParameterSupported:
          discovered.metadata.authorization_response_iss_parameter_supported === true,
      });
    } catch (error) {
      throw new TuttiError('TUTTI_ERR_OAUTH_ISSUER_MISMATCH', { key }, { cause: error });
    }
    if (!answer.code) {
      throw new TuttiError('TUTTI_ERR_OAUTH_TOKEN_REQUEST_FAILED', {
        key,
        reason: 'the answer carries no authorization code',
      });
    }
    let tokens: OAuthTokens;
    try {
      tokens = await exchangeAuthorization(discovered.authorizationServerUrl, {
        metadata: discovered.metadata,
        clientInformation: client.information,
        authorizationCode: answer.code,
        ...(answer.iss !== undefined ? { iss: answer.iss } : {}),
        codeVerifier: flow.codeVerifier,
        redirectUri: flow.redirectUri,
        resource: discovered.resource,
        fetchFn,
      });
    } catch (error) {
      if (isClientRejected(error) && client.source !== 'manifest') {
        // A registered client the server no longer knows: register anew next time.
        await deleteRecord(credentialsDir, key);
        if (client.source === 'dynamic') await vault.delete(key, 'client_secret');
      }
      throw new TuttiError('TUTTI_ERR_OAUTH_TOKEN_REQUEST_FAILED', {
        key,
        reason: oauthReason(error),
      });
    }
    const scope = tokens.scope ?? flow.scope;
    if (tokens.refresh_token) {
      await vault.set(key, 'refresh_token', createSecret(tokens.refresh_token));
    } else {
      await vault.delete(key, 'refresh_token');
    }
    const stored = await readRecord(credentialsDir, key);
    if (stored) await writeRecord(credentialsDir, key, { ...stored, ...(scope ? { scope } : {}) });
    const grant = grantOf(key);
    grant.connector = connector;
    grant.signedIn(tokens, scope);
    logger.info(
      { key, issuer: discovered.issuer, refreshToken: tokens.refresh_token !== undefined },
      'oauth sign-in complete',
    );
    if (options.onSignedIn) {
      const onSignedIn = options.onSignedIn;
      setImmediate(() => {
        try {
          onSignedIn(key);
        } catch (error) {
          logger.warn({ key, err: (error as Error).message }, 'onSignedIn failed');
        }
      });
    }
    return key;
  }

  async function forget(key: string): Promise<void> {
    grants.get(key)?.retire(false);
    grants.delete(key);
    for (const [state, flow] of pending) if (flow.connector.key === key) pending.delete(state);
    const record = await readRecord(credentialsDir, key);
    const refreshToken = await vault.get(key, 'refresh_token');
    if (
      (record?.metadata as RevocationMetadata | undefined)?.revocation_endpoint &&
      record &&
      refreshToken
    ) {
      try {
        await revokeToken(
          record.metadata,
          await clientInformation(vault, key, record.clientId),
          refreshToken.reveal(),
          'refresh_token',
          fetchFn,
        );
        logger.info({ key, issuer: record.issuer }, 'oauth grant revoked at the server');
      } catch (error) {
        const reason = error instanceof TypeError ? oauthReason(error) : (error as Error).message;
        logger.warn({ key, issuer: record.issuer, reason }, 'oauth revocation failed');
      }
    }
    await vault.delete(key, 'refresh_token');
    await vault.delete(key, 'client_secret');
    await deleteRecord(credentialsDir, key);
  }

  return {
    hasGrant: (key) => grantOf(key).usable(),
    transportAuth(connector: OAuthConnector): TransportAuth {
      const grant = grantOf(connector.key);
      grant.connector = connector;
      return grant.transportAuth;
    },
    beginSignIn,
    completeSignIn,
    forget,
    close() {
      closed = true;
      for (const grant of grants.values()) grant.retire(true);
      pending.clear();
    },
  };
}
