/**
 * RFC 7009 token revocation, which the SDK does not offer: a form POST of `token`,
 * `token_type_hint` and the client's credentials to the authorization server's
 * `revocation_endpoint`. A failure says only the HTTP status.
 */
import type {
  AuthorizationServerMetadata,
  FetchLike,
  OAuthClientInformationMixed,
} from '@modelcontextprotocol/client';
import type { RevocationMetadata } from './discovery.js';

/** Revokes `token` at `metadata.revocation_endpoint`; rejects with the HTTP status on refusal. */
export async function revokeToken(
  metadata: AuthorizationServerMetadata,
  client: OAuthClientInformationMixed,
  token: string,
  hint: 'refresh_token' | 'access_token',
  fetchFn: FetchLike,
): Promise<void> {
  const {
    revocation_endpoint: endpoint,
    revocation_endpoint_auth_methods_supported: methods = [],
  } = metadata as RevocationMetadata;
  if (!endpoint) return;
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers = new Headers({ 'Content-Type': 'application/x-www-form-urlencoded' });
  if (client.client_secret && !methods.includes('client_secret_post')) {
    const basic = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`;
    headers.set('Authorization', `Basic ${Buffer.from(basic).toString('base64')}`);
  } else {
    body.set('client_id', client.client_id);
    if (client.client_secret) body.set('client_secret', client.client_secret);
  }
  const response = await fetchFn(endpoint, { method: 'POST', headers, body });
  await response.arrayBuffer().catch(() => undefined);
  if (!response.ok) throw new Error(`the revocation endpoint answered HTTP ${response.status}`);
}
