/**
 * Which connectors the daemon signs in to as their OAuth client: a remote MCP server whose
 * manifest says `oauth2` and that has no token set as its credential (the sign-in's tokens
 * are used then), or says `none` (its server may still answer 401 with an OAuth
 * challenge). An `api_key` connector, a stdio server, or an `oauth2` one given a token
 * keeps the credential it was given.
 */
import type { OAuthConnector } from '../oauth/types.js';
import type { Credential, InstalledConnector } from '../store/index.js';

/** `release` as the OAuth engine sees it, when a sign-in can serve it; else undefined. */
export function signInTarget(
  release: InstalledConnector,
  credential: Credential | undefined,
): OAuthConnector | undefined {
  const mcp = release.paths.mcp;
  if (mcp?.transport !== 'http') return undefined;
  const auth = release.manifest.auth;
  if (auth.kind === 'api_key') return undefined;
  if (auth.kind === 'oauth2' && credential?.kind === 'oauth2') return undefined;
  return {
    key: release.key,
    url: mcp.url,
    auth:
      auth.kind === 'oauth2'
        ? {
            ...(auth.scopes && { scopes: auth.scopes }),
            ...(auth.clientId && { clientId: auth.clientId }),
          }
        : {},
  };
}

/** True when `release` waits for a sign-in rather than for a credential (`needs-auth`). */
export function waitsForSignIn(release: InstalledConnector, lastErrorCode?: string): boolean {
  if (release.paths.mcp?.transport !== 'http') return false;
  const { kind } = release.manifest.auth;
  return kind === 'oauth2' || lastErrorCode === 'TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED';
}
