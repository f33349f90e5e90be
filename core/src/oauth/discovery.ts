/**
 * Finding a connector's authorization server as the MCP authorization spec says: RFC 9728
 * protected resource metadata (from the 401's `resource_metadata`, else the well-known
 * paths), then RFC 8414 metadata, else OpenID discovery (the SDK's
 * `discoverOAuthServerInfo`). What the SDK lets pass and tutti refuses: no authorization
 * server metadata at all (the SDK would guess `/authorize` and `/token`), and metadata
 * without `code_challenge_methods_supported` listing S256. The resource indicator is the
 * PRM's `resource` (when it covers the connector's URL), else the URL itself.
 */
import {
  type AuthorizationServerMetadata,
  buildDiscoveryUrls,
  checkResourceAllowed,
  discoverOAuthServerInfo,
  type FetchLike,
  IssuerMismatchError,
  type OAuthProtectedResourceMetadata,
  resourceUrlFromServerUrl,
} from '@modelcontextprotocol/client';
import { TuttiError } from '../errors/index.js';

/** What discovery found for one connector. */
export interface Discovered {
  readonly authorizationServerUrl: string;
  readonly metadata: AuthorizationServerMetadata;
  readonly issuer: string;
  readonly resource: string;
  readonly protectedResource?: OAuthProtectedResourceMetadata;
}

/** Discovers the authorization server of the MCP server at `url`; see the module doc. */
export async function discover(
  key: string,
  url: string,
  resourceMetadataUrl: string | undefined,
  fetchFn: FetchLike,
): Promise<Discovered> {
  let info: Awaited<ReturnType<typeof discoverOAuthServerInfo>>;
  try {
    info = await discoverOAuthServerInfo(url, {
      fetchFn,
      ...(resourceMetadataUrl ? { resourceMetadataUrl: new URL(resourceMetadataUrl) } : {}),
    });
  } catch (error) {
    const reason =
      error instanceof IssuerMismatchError
        ? 'its metadata names a different issuer than its address'
        : error instanceof TypeError
          ? 'the server did not answer'
          : 'its metadata could not be read';
    throw new TuttiError('TUTTI_ERR_OAUTH_DISCOVERY_FAILED', { key, reason }, { cause: error });
  }
  const metadata = info.authorizationServerMetadata;
  if (!metadata) {
    throw new TuttiError('TUTTI_ERR_OAUTH_DISCOVERY_FAILED', {
      key,
      reason: `no authorization server metadata at ${new URL(info.authorizationServerUrl).origin}`,
    });
  }
  if (!metadata.code_challenge_methods_supported?.includes('S256')) {
    throw new TuttiError('TUTTI_ERR_OAUTH_PKCE_UNSUPPORTED', { key, issuer: metadata.issuer });
  }
  const own = resourceUrlFromServerUrl(url);
  const named = info.resourceMetadata?.resource;
  if (
    named !== undefined &&
    !checkResourceAllowed({ requestedResource: own, configuredResource: named })
  ) {
    throw new TuttiError('TUTTI_ERR_OAUTH_DISCOVERY_FAILED', {
      key,
      reason: 'its protected resource metadata names another resource',
    });
  }
  return {
    authorizationServerUrl: info.authorizationServerUrl,
    metadata: await withRevocation(info.authorizationServerUrl, metadata, fetchFn),
    issuer: metadata.issuer,
    resource: named ?? own.href,
    ...(info.resourceMetadata ? { protectedResource: info.resourceMetadata } : {}),
  };
}

/** The revocation fields of a metadata document (the SDK's OpenID schema drops them). */
export interface RevocationMetadata {
  readonly revocation_endpoint?: string;
  readonly revocation_endpoint_auth_methods_supported?: string[];
}

/**
 * `metadata` with its `revocation_endpoint`: the SDK parses OpenID discovery documents
 * with a schema that drops the RFC 7009 fields, so they are read from the same document.
 */
async function withRevocation(
  authorizationServerUrl: string,
  metadata: AuthorizationServerMetadata,
  fetchFn: FetchLike,
): Promise<AuthorizationServerMetadata> {
  if ((metadata as RevocationMetadata).revocation_endpoint) return metadata;
  for (const { url } of buildDiscoveryUrls(authorizationServerUrl)) {
    try {
      const response = await fetchFn(url, { headers: { Accept: 'application/json' } });
      if (!response.ok) {
        await response.arrayBuffer().catch(() => undefined);
        continue;
      }
      const document = (await response.json()) as RevocationMetadata & { issuer?: unknown };
      if (document.issuer !== metadata.issuer) continue;
      if (typeof document.revocation_endpoint !== 'string') return metadata;
      return {
        ...metadata,
        revocation_endpoint: document.revocation_endpoint,
        ...(Array.isArray(document.revocation_endpoint_auth_methods_supported)
          ? {
              revocation_endpoint_auth_methods_supported:
                document.revocation_endpoint_auth_methods_supported,
            }
          : {}),
      } as AuthorizationServerMetadata;
    } catch {
      // No revocation then: forget still deletes everything tutti stored.
    }
  }
  return metadata;
}

/**
 * The scope to ask: the challenge's (or the step-up union), else the manifest's, else the
 * server's `scopes_supported`; plus `offline_access` when the authorization server lists
 * it (a refresh token is what keeps a connector signed in).
 */
export function chooseScope(
  challenged: string | undefined,
  manifest: readonly string[] | undefined,
  discovered: Discovered,
): string | undefined {
  const words = (
    challenged ??
    (manifest && manifest.length > 0 ? manifest.join(' ') : undefined) ??
    discovered.protectedResource?.scopes_supported?.join(' ') ??
    ''
  )
    .split(/\s+/)
    .filter(Boolean);
  if (discovered.metadata.scopes_supported?.includes('offline_access')) {
    if (!words.includes('offline_access')) words.push('offline_access');
  }
  return words.length > 0 ? [...new Set(words)].join(' ') : undefined;
}
