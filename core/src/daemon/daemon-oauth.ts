/**
 * The daemon's OAuth client of remote connectors (core/src/oauth/), wired to the daemon:
 * secrets in the home's credential store, the redirect to the control port's callback,
 * authorization servers reached through the proxy set as remote MCP servers are, and a
 * sign-in lost while a connector runs handed to the runtime.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createOAuthClients, type OAuthClients } from '../oauth/index.js';
import type { SecretRedactor } from '../process/index.js';
import type { ConnectorRuntime } from '../runtime/index.js';
import type { ConnectorStore } from '../store/index.js';
import { proxyFetch } from '../upstream/index.js';
import { OAUTH_CALLBACK_PATH } from './sign-in-endpoints.js';

/** What the daemon hands its OAuth client. */
export interface DaemonOAuthOptions {
  readonly home: string;
  readonly store: ConnectorStore;
  /** The control port (known once it listens; a sign-in begins only after that). */
  readonly controlPort: () => number;
  /** The runtime, once it exists (a lost sign-in is its to act on). */
  readonly runtime: () => ConnectorRuntime | undefined;
  readonly clientMetadataUrl?: string | undefined;
  readonly logger: Logger;
  readonly redactor: SecretRedactor;
}

/** The daemon's OAuth client; see the module doc. */
export function createDaemonOAuth(options: DaemonOAuthOptions): OAuthClients {
  const { logger } = options;
  const fetch = proxyFetch();
  return createOAuthClients({
    ...(fetch && { fetch }),
    vault: options.store.secrets,
    credentialsDir: join(options.home, 'credentials'),
    redirectUri: () => `http://127.0.0.1:${options.controlPort()}${OAUTH_CALLBACK_PATH}`,
    ...(options.clientMetadataUrl && { clientMetadataUrl: options.clientMetadataUrl }),
    logger,
    redactor: options.redactor,
    onSignInLost: ({ key, reason }) => {
      options
        .runtime()
        ?.signInLost(key, reason)
        .catch((error: unknown) =>
          logger.warn(
            { connector: key, err: (error as Error)?.message },
            'a lost sign-in was not acted on',
          ),
        );
    },
  });
}
