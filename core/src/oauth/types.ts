/**
 * The daemon as the OAuth client of remote connectors (the MCP authorization
 * specification): the shapes the runtime, the control API and the dashboard use. The
 * engine behind them is in this folder; nothing here holds a secret in a printable form.
 */
import type { AuthProvider, FetchLike } from '@modelcontextprotocol/client';

/** What a remote connector's manifest says of its OAuth client (`auth` of kind `oauth2`). */
export interface OAuthManifestAuth {
  /** Scopes asked when the server's challenge names none (before the server's own list). */
  readonly scopes?: readonly string[];
  /** A client registered beforehand at the authorization server (its secret is a credential). */
  readonly clientId?: string;
}

/** A remote connector the OAuth engine signs in to. */
export interface OAuthConnector {
  readonly key: string;
  /** The MCP endpoint (the protected resource). */
  readonly url: string;
  readonly auth: OAuthManifestAuth;
}

/** A sign-in just begun: the URL to open, and when its `state` stops being accepted. */
export interface SignInStart {
  readonly authorizationUrl: string;
  /** ISO time, 10 minutes after it began. */
  readonly expiresAt: string;
}

/** The query of a redirect to `GET /oauth/callback`. */
export interface SignInAnswer {
  readonly state?: string;
  readonly code?: string;
  readonly iss?: string;
  readonly error?: string;
  readonly error_description?: string;
}

/** What a transport of a signed-in (or signing-in) connector is given. */
export interface TransportAuth {
  /** The connector's key (the transport's errors name it). */
  readonly key: string;
  /** `token()` is the current access token (refreshed first when due); `onUnauthorized` refreshes once per token. */
  readonly authProvider: AuthProvider;
  /** The fetch to make the MCP requests with (it remembers which token each one carried). */
  readonly fetch: FetchLike;
}

/** Why a connector went to `needs-auth` while the daemon ran. */
export interface SignInLost {
  readonly key: string;
  /** Fixed text, never the server's words: e.g. "the authorization server revoked the grant". */
  readonly reason: string;
}

/** The OAuth engine of one daemon; see the module doc. */
export interface OAuthClients {
  /** True when `key` holds a grant it can use without a browser (a refresh token, or a live access token). */
  hasGrant(key: string): Promise<boolean>;
  /** The auth of `connector`'s transport (the same object for the connector until it is forgotten). */
  transportAuth(connector: OAuthConnector): TransportAuth;
  /** Starts a sign-in of `connector`: discovery, registration, PKCE; the URL to open. */
  beginSignIn(connector: OAuthConnector): Promise<SignInStart>;
  /** Ends the sign-in `answer.state` names (single use); resolves with its connector's key. */
  completeSignIn(answer: SignInAnswer): Promise<string>;
  /** Revokes `key`'s tokens at the server when it can (RFC 7009) and forgets all it stored for `key`. */
  forget(key: string): Promise<void>;
  /** Stops every timer (the daemon is going away). */
  close(): void;
}
