/**
 * One connector's grant while the daemon runs: the access token and its expiry (memory
 * only), whether a refresh token is stored (the token itself stays in the vault), the
 * refresh schedule, and the auth handed to its transports.
 *
 * - Scheduled refresh at the earlier of 60 s before expiry and 80% of the lifetime (not
 *   before half of it: a token of 60 s or less would otherwise be refreshed at once),
 *   whether or not calls are made; at most one refresh attempt per second; timers unref'd.
 * - One refresh in flight per connector: a 401 refreshes only when the token that request
 *   carried is still the current one (the tracking fetch remembers which token each
 *   Response carried), else the SDK just replays with the newer token.
 * - A rotated refresh token is stored in the vault before the new access token is used.
 * - `invalid_grant`/`invalid_client`: the grant is cleared, `onSignInLost` is called once,
 *   and calls fail with TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED. An authorization server that is
 *   down (network, 5xx): the tokens are kept, retries back off (1 s doubling to 30 s),
 *   and calls whose token expired fail with TUTTI_ERR_OAUTH_SERVER_UNREACHABLE meanwhile.
 * The SDK's `auth()` is not used here: it treats "server down" like "sign in again".
 */
import {
  type AuthProvider,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  type FetchLike,
  type OAuthTokens,
  refreshAuthorization,
} from '@modelcontextprotocol/client';
import type { SecretVault } from '../credentials/secret-vault.js';
import { TuttiError } from '../errors/index.js';
import type { SecretRedactor } from '../process/secret-redactor.js';
import { createSecret } from '../store/secret.js';
import { clientInformation } from './client-registration.js';
import { isClientRejected, isGrantLost, oauthReason } from './oauth-errors.js';
import { deleteRecord, readRecord } from './oauth-record.js';
import type { OAuthConnector, SignInLost, TransportAuth } from './types.js';

/** pino-compatible logger subset; nothing secret is ever passed to it. */
export interface OAuthLogger {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
}

/** What a {@link ConnectorGrant} shares with the rest of the engine. */
export interface GrantContext {
  readonly vault: SecretVault;
  readonly credentialsDir: string;
  /** The fetch of authorization-server requests (each one bounded in time). */
  readonly fetch: FetchLike;
  /** The fetch of the MCP server's requests (streams among them: not bounded here). */
  readonly resourceFetch: FetchLike;
  readonly now: () => number;
  readonly logger: OAuthLogger;
  readonly redactor?: SecretRedactor;
  readonly onSignInLost: (lost: SignInLost) => void;
}

/** At most one refresh attempt per connector in this many ms. */
export const MIN_REFRESH_GAP_MS = 1_000;
/** Longest wait between retries of a refresh the server did not answer. */
export const MAX_RETRY_MS = 30_000;
/** A token this close to its expiry is not sent any more (it would expire on the way). */
const EXPIRY_MARGIN_MS = 500;

/**
 * When to refresh a token of `lifetime` ms, counted from its issue: the earlier of 60 s
 * before expiry and 80% of the lifetime, but not before half of it.
 */
export function refreshDelay(lifetime: number): number {
  return Math.min(0.8 * lifetime, Math.max(lifetime - 60_000, 0.5 * lifetime));
}

/** The sign-in and token state of one connector; see the module doc. */
export class ConnectorGrant {
  connector: OAuthConnector | undefined;
  /** The last challenge of a 401/403: where its PRM is, and the scope it named. */
  challenge: { resourceMetadataUrl?: string; scope?: string } = {};
  /** The scope a 403 `insufficient_scope` asked for (union with the granted one). */
  stepUpScope: string | undefined;
  readonly transportAuth: TransportAuth;

  private access: { token: string; issuedAt: number; expiresAt?: number } | undefined;
  private scope: string | undefined;
  private hasRefresh: boolean | undefined;
  private lost: string | undefined;
  private refreshing: Promise<string> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private unreachable: TuttiError | undefined;
  /** Bumped by a new sign-in or forget: an older refresh's result is dropped. */
  private epoch = 0;
  private closed = false;
  private releaseSecrets: () => void = () => {};
  private readonly sentWith = new WeakMap<Response, string>();

  constructor(
    readonly key: string,
    private readonly context: GrantContext,
  ) {
    const authProvider: AuthProvider = {
      token: () => this.token(),
      onUnauthorized: (ctx) => this.onUnauthorized(ctx.response),
    };
    this.transportAuth = Object.freeze({
      key,
      authProvider,
      fetch: (url: string | URL, init?: RequestInit) => this.trackingFetch(url, init),
    });
  }

  /** True when a call can be authorized without a browser. */
  async usable(): Promise<boolean> {
    if (this.lost !== undefined) return false;
    if (this.access && !this.expired(this.access)) return true;
    return this.refreshTokenStored();
  }

  /** The current access token (refreshed first when it expired), or undefined when not signed in. */
  async token(): Promise<string | undefined> {
    if (this.lost !== undefined) throw this.signInRequired(this.lost);
    const access = this.access;
    if (access && !this.expired(access)) return access.token;
    if (!(await this.refreshTokenStored())) {
      if (!access) return undefined;
      this.loseSignIn('the access token expired and the server gave no refresh token');
      throw this.signInRequired(this.lost ?? 'not signed in');
    }
    return this.refresh();
  }

  /** A new sign-in's tokens (the refresh token is already in the vault). */
  signedIn(tokens: OAuthTokens, scope: string | undefined): void {
    this.epoch += 1;
    this.lost = undefined;
    this.stepUpScope = undefined;
    this.challenge = {};
    this.unreachable = undefined;
    this.failures = 0;
    this.hasRefresh = tokens.refresh_token !== undefined;
    this.scope = scope;
    this.setAccess(tokens);
  }

  /** Drops timers and memory (forget, or the daemon closing when `closing`). */
  retire(closing: boolean): void {
    this.epoch += 1;
    if (closing) this.closed = true;
    this.clearTimer();
    this.access = undefined;
    this.hasRefresh = closing ? this.hasRefresh : false;
    this.releaseSecrets();
    this.releaseSecrets = () => {};
  }

  /** Refreshes through the one in-flight refresh of this connector; resolves with the new token. */
  refresh(): Promise<string> {
    this.refreshing ??= this.runRefresh().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async onUnauthorized(response: Response): Promise<void> {
    const carried = this.sentWith.get(response);
    this.noteChallenge(response);
    if (this.lost !== undefined) throw this.signInRequired(this.lost);
    if (!this.access && !(await this.refreshTokenStored())) {
      throw this.signInRequired('not signed in');
    }
    if (this.refreshing) {
      await this.refreshing;
      return;
    }
    // Another request's 401 already brought a newer token: the SDK replays with it.
    if (carried !== undefined && this.access && carried !== this.access.token) return;
    await this.refresh();
  }

  private async trackingFetch(url: string | URL, init?: RequestInit): Promise<Response> {
    const response = await this.context.resourceFetch(url, init);
    const header = new Headers(init?.headers).get('authorization');
    if (header?.startsWith('Bearer ')) this.sentWith.set(response, header.slice(7));
    if (response.status === 403) this.noteForbidden(response);
    return response;
  }

  private noteChallenge(response: Response): void {
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    if (resourceMetadataUrl) this.challenge.resourceMetadataUrl = resourceMetadataUrl.href;
    if (scope) this.challenge.scope = computeScopeUnion(this.challenge.scope, scope);
  }

  /** A 403 `insufficient_scope`: remember the wider scope, and say the connector needs a sign-in. */
  private noteForbidden(response: Response): void {
    const { error, scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
    if (error !== 'insufficient_scope') return;
    if (resourceMetadataUrl) this.challenge.resourceMetadataUrl = resourceMetadataUrl.href;
    const wider = computeScopeUnion(this.stepUpScope ?? this.scope, scope);
    if (wider === this.stepUpScope) return;
    this.stepUpScope = wider;
    this.context.logger.info({ key: this.key }, 'oauth step-up: the server asks for more scope');
    this.context.onSignInLost({ key: this.key, reason: 'the server asks for more access' });
  }

  private async runRefresh(): Promise<string> {
    const { vault, now, logger } = this.context;
    const wait = this.lastAttemptAt + MIN_REFRESH_GAP_MS - now();
    if (wait > 0 && this.unreachable) throw this.unreachable;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
    this.lastAttemptAt = now();
    const epoch = this.epoch;
    const refreshToken = await vault.get(this.key, 'refresh_token');
    const record = await readRecord(this.context.credentialsDir, this.key);
    if (!refreshToken || !record) {
      this.loseSignIn('no refresh token is stored');
      throw this.signInRequired('no refresh token is stored');
    }
    this.scope ??= record.scope;
    let tokens: OAuthTokens;
    try {
      tokens = await refreshAuthorization(record.authorizationServerUrl, {
        metadata: record.metadata,
        clientInformation: await clientInformation(vault, this.key, record.clientId),
        refreshToken: refreshToken.reveal(),
        resource: record.resource,
        fetchFn: this.context.fetch,
      });
    } catch (error) {
      if (epoch !== this.epoch) throw this.staleRefresh();
      if (isGrantLost(error)) {
        const reason =
          oauthReason(error) === 'invalid_grant'
            ? 'the authorization server no longer accepts the grant (invalid_grant)'
            : `the authorization server rejected the client (${oauthReason(error)})`;
        await this.dropGrant(isClientRejected(error) && record.clientSource !== 'manifest');
        this.loseSignIn(reason);
        throw this.signInRequired(reason);
      }
      this.failures += 1;
      this.unreachable = new TuttiError('TUTTI_ERR_OAUTH_SERVER_UNREACHABLE', {
        key: this.key,
        reason: oauthReason(error),
      });
      const retryIn = Math.min(MAX_RETRY_MS, MIN_REFRESH_GAP_MS * 2 ** (this.failures - 1));
      logger.warn(
        { key: this.key, reason: oauthReason(error), retryInMs: retryIn },
        'oauth refresh failed; the sign-in is kept',
      );
      this.scheduleIn(retryIn);
      throw this.unreachable;
    }
    if (epoch !== this.epoch) throw this.staleRefresh();
    if (tokens.refresh_token && tokens.refresh_token !== refreshToken.reveal()) {
      // The rotated token is durable before anything uses the new access token.
      await vault.set(this.key, 'refresh_token', createSecret(tokens.refresh_token));
    }
    if (epoch !== this.epoch) throw this.staleRefresh();
    this.unreachable = undefined;
    this.failures = 0;
    this.hasRefresh = true;
    this.setAccess(tokens);
    logger.debug({ key: this.key, expiresIn: tokens.expires_in }, 'oauth token refreshed');
    return tokens.access_token;
  }

  /** A refresh that a forget or a new sign-in overtook: its caller tries again with the new state. */
  private staleRefresh(): TuttiError {
    return this.lost !== undefined
      ? this.signInRequired(this.lost)
      : new TuttiError('TUTTI_ERR_OAUTH_SERVER_UNREACHABLE', {
          key: this.key,
          reason: 'the sign-in changed during the refresh',
        });
  }

  private setAccess(tokens: OAuthTokens): void {
    const issuedAt = this.context.now();
    this.access = {
      token: tokens.access_token,
      issuedAt,
      ...(tokens.expires_in !== undefined
        ? { expiresAt: issuedAt + tokens.expires_in * 1000 }
        : {}),
    };
    if (tokens.scope) this.scope = tokens.scope;
    this.releaseSecrets();
    this.releaseSecrets =
      this.context.redactor?.add(tokens.access_token, tokens.refresh_token) ?? (() => {});
    const { expiresAt } = this.access;
    if (expiresAt === undefined) this.clearTimer();
    else this.scheduleIn(refreshDelay(expiresAt - issuedAt));
  }

  private scheduleIn(ms: number): void {
    this.clearTimer();
    if (this.closed) return;
    const gap = this.lastAttemptAt + MIN_REFRESH_GAP_MS - this.context.now();
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.refresh().catch(() => {});
      },
      Math.max(ms, gap, 0),
    );
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private expired(access: { expiresAt?: number }): boolean {
    return (
      access.expiresAt !== undefined && this.context.now() >= access.expiresAt - EXPIRY_MARGIN_MS
    );
  }

  private async refreshTokenStored(): Promise<boolean> {
    this.hasRefresh ??= (await this.context.vault.get(this.key, 'refresh_token')) !== undefined;
    return this.hasRefresh;
  }

  /** The grant is gone at the server: forget the refresh token (and a rejected client). */
  private async dropGrant(clientRejected: boolean): Promise<void> {
    const { vault, credentialsDir } = this.context;
    this.hasRefresh = false;
    await vault.delete(this.key, 'refresh_token');
    if (clientRejected) {
      await vault.delete(this.key, 'client_secret');
      await deleteRecord(credentialsDir, this.key);
    }
  }

  /** The connector needs a browser sign-in again: tell the owner once. */
  private loseSignIn(reason: string): void {
    this.clearTimer();
    this.access = undefined;
    this.releaseSecrets();
    this.releaseSecrets = () => {};
    if (this.lost !== undefined) return;
    this.lost = reason;
    this.context.logger.warn({ key: this.key, reason }, 'oauth sign-in lost');
    this.context.onSignInLost({ key: this.key, reason });
  }

  private signInRequired(reason: string): TuttiError {
    return new TuttiError('TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED', { key: this.key, reason });
  }
}
