/**
 * Reasons for OAuth errors that never quote a server's words: an OAuth error code (a
 * fixed vocabulary of RFC 6749), an HTTP status, or "did not answer". The SDK's error
 * messages carry the authorization server's raw body, which may echo a code or a token,
 * so they are never used.
 */
import { OAuthError } from '@modelcontextprotocol/client';

/** An OAuth error code when it looks like one (lowercase words and `_`), else undefined. */
export function safeOAuthCode(code: unknown): string | undefined {
  return typeof code === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(code) ? code : undefined;
}

/** True when `error` means the server could not be reached at all (network, DNS, refused). */
export function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError;
}

/** The network failure's short name, e.g. "connection refused". */
function networkReason(error: TypeError): string {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  return 'the server did not answer';
}

/** The HTTP status an SDK OAuthError of a non-OAuth answer names ("HTTP 503: ..."). */
function httpStatusOf(error: OAuthError): number | undefined {
  const match = /^HTTP (\d{3}):/.exec(error.message);
  return match ? Number(match[1]) : undefined;
}

/**
 * A short, fixed-vocabulary reason for a failed request to an authorization server:
 * `invalid_grant`, `HTTP 503`, `connection refused`, `unexpected answer`.
 */
export function oauthReason(error: unknown): string {
  if (error instanceof TypeError) return networkReason(error);
  if ((error as Error)?.name === 'TimeoutError') return 'no answer in time';
  if (error instanceof OAuthError) {
    const status = httpStatusOf(error);
    if (status !== undefined) return `HTTP ${status}`;
    return safeOAuthCode(error.code) ?? 'unexpected answer';
  }
  return 'unexpected answer';
}

/** OAuth error codes of a token request that mean the grant or the client is gone for good. */
const GRANT_LOST = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client']);

/**
 * True when a refresh failed because the grant (or the client) is no longer valid: the
 * user must sign in again. Everything else (network, 5xx, `server_error`,
 * `temporarily_unavailable`, odd answers) is transient: the tokens are kept.
 */
export function isGrantLost(error: unknown): boolean {
  return (
    error instanceof OAuthError && httpStatusOf(error) === undefined && GRANT_LOST.has(error.code)
  );
}

/** True when the error says the client itself was rejected (re-register next time). */
export function isClientRejected(error: unknown): boolean {
  return (
    error instanceof OAuthError &&
    (error.code === 'invalid_client' || error.code === 'unauthorized_client')
  );
}
