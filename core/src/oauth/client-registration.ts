/**
 * Which OAuth client tutti signs in as, in the MCP spec's order: the manifest's
 * `auth.clientId` (with the `client_secret` the user stored for it, if any); else the
 * client registered before at the same issuer (kept in the record until the server
 * rejects it); else a client ID metadata document, when the server supports them and the
 * daemon has one; else dynamic client registration (RFC 7591) as a native app with a
 * loopback redirect; else none: TUTTI_ERR_OAUTH_REGISTRATION_UNSUPPORTED.
 */
import {
  type FetchLike,
  type OAuthClientInformationMixed,
  RegistrationRejectedError,
  registerClient,
} from '@modelcontextprotocol/client';
import type { SecretVault } from '../credentials/secret-vault.js';
import { TuttiError } from '../errors/index.js';
import { createSecret } from '../store/secret.js';
import type { Discovered } from './discovery.js';
import type { ClientSource, OAuthRecord } from './oauth-record.js';
import { safeOAuthCode } from './oauth-errors.js';
import type { OAuthConnector } from './types.js';

/** The client to sign in as. */
export interface ResolvedClient {
  readonly information: OAuthClientInformationMixed;
  readonly source: ClientSource;
}

/** What {@link resolveClient} needs. */
export interface RegistrationContext {
  readonly connector: OAuthConnector;
  readonly discovered: Discovered;
  readonly stored: OAuthRecord | undefined;
  readonly vault: SecretVault;
  readonly redirectUri: string;
  readonly scope: string | undefined;
  readonly clientMetadataUrl: string | undefined;
  readonly fetch: FetchLike;
}

/** The client information for a token request, with the secret from the vault if any. */
export async function clientInformation(
  vault: SecretVault,
  key: string,
  clientId: string,
): Promise<OAuthClientInformationMixed> {
  const secret = await vault.get(key, 'client_secret');
  return secret ? { client_id: clientId, client_secret: secret.reveal() } : { client_id: clientId };
}

/** The client to sign in as; see the module doc. Registers (and stores a secret) when needed. */
export async function resolveClient(context: RegistrationContext): Promise<ResolvedClient> {
  const { connector, discovered, stored, vault } = context;
  const { key } = connector;
  const { metadata, issuer } = discovered;
  if (connector.auth.clientId) {
    return {
      information: await clientInformation(vault, key, connector.auth.clientId),
      source: 'manifest',
    };
  }
  if (stored && stored.issuer === issuer && stored.clientSource !== 'manifest') {
    if (stored.clientSource === 'dynamic') {
      return {
        information: await clientInformation(vault, key, stored.clientId),
        source: 'dynamic',
      };
    }
    if (stored.clientId === context.clientMetadataUrl) {
      return { information: { client_id: stored.clientId }, source: 'metadata-document' };
    }
  }
  if (metadata.client_id_metadata_document_supported === true && context.clientMetadataUrl) {
    return { information: { client_id: context.clientMetadataUrl }, source: 'metadata-document' };
  }
  if (!metadata.registration_endpoint) {
    throw new TuttiError('TUTTI_ERR_OAUTH_REGISTRATION_UNSUPPORTED', { key, issuer });
  }
  let registered: Awaited<ReturnType<typeof registerClient>>;
  try {
    registered = await registerClient(discovered.authorizationServerUrl, {
      metadata,
      clientMetadata: {
        client_name: 'tutti-connector',
        redirect_uris: [context.redirectUri],
        application_type: 'native',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      ...(context.scope ? { scope: context.scope } : {}),
      fetchFn: context.fetch,
    });
  } catch (error) {
    throw new TuttiError(
      'TUTTI_ERR_OAUTH_REGISTRATION_FAILED',
      { key, issuer, reason: registrationReason(error) },
      { cause: error instanceof RegistrationRejectedError ? undefined : error },
    );
  }
  if (registered.client_secret) {
    await vault.set(key, 'client_secret', createSecret(registered.client_secret));
  } else {
    await vault.delete(key, 'client_secret');
  }
  return {
    information: registered.client_secret
      ? { client_id: registered.client_id, client_secret: registered.client_secret }
      : { client_id: registered.client_id },
    source: 'dynamic',
  };
}

/** Why a registration failed: HTTP status and RFC 7591 error code, never the body's words. */
function registrationReason(error: unknown): string {
  if (error instanceof RegistrationRejectedError) {
    let code: string | undefined;
    try {
      code = safeOAuthCode((JSON.parse(error.body) as { error?: unknown }).error);
    } catch {
      code = undefined;
    }
    return code ? `HTTP ${error.status}, ${code}` : `HTTP ${error.status}`;
  }
  if (error instanceof TypeError) return 'the server did not answer';
  return 'unexpected answer';
}
