/** What an HTTP status from a remote MCP server means for the connection. */
import {
  InsufficientScopeError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';

/** HTTP status of a refused credential (401, or 403 without a scope step-up), else undefined. */
export function unauthorizedStatus(error: unknown): number | undefined {
  if (!(error instanceof SdkHttpError)) return undefined;
  return error.status === 401 || error.status === 403 ? error.status : undefined;
}

/**
 * Why an OAuth connector's request needs a new sign-in, from the SDK's own auth errors, or
 * undefined: a 401 even after the refresh (the server refuses fresh tokens), a 401 with no
 * way to re-authorize, or a 403 `insufficient_scope` (step-up).
 */
export function signInNeeded(error: unknown): string | undefined {
  if (error instanceof InsufficientScopeError) return 'the server asks for more access';
  if (error instanceof UnauthorizedError) return 'the server refused the access token';
  if (
    error instanceof SdkHttpError &&
    error.code === SdkErrorCode.ClientHttpAuthentication &&
    error.status === 401
  ) {
    return 'the server refused a freshly refreshed access token';
  }
  return undefined;
}
