/** The daemon as the OAuth client of remote connectors (docs/remote-connectors.md). */
export { createOAuthClients, type OAuthClientsOptions, SIGN_IN_TTL_MS } from './oauth-clients.js';
export type * from './types.js';
