/**
 * The connector store as the daemon opens it at start: its problems logged, the demo
 * connectors installed on a fresh home, and the releases nothing uses removed before
 * anything runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CredentialStoreMode } from '../credentials/select-vault.js';
import { type ConnectorStore, openStore, type ReleaseLimits } from '../store/index.js';

/** What {@link openDaemonStore} takes of the daemon's options. */
export interface DaemonStoreOptions {
  readonly demoConnectors?: readonly string[];
  readonly releaseLimits?: Partial<ReleaseLimits>;
  readonly credentialStore?: CredentialStoreMode;
}

/**
 * Opens the store under `home` (already migrated and locked).
 * @example const store = await openDaemonStore(home, options, logger);
 */
export async function openDaemonStore(
  home: string,
  options: DaemonStoreOptions,
  logger: Logger,
): Promise<ConnectorStore> {
  const fresh = !existsSync(join(home, 'state'));
  const store = await openStore(home, {
    onProblem: (problem) =>
      logger.warn(
        {
          ...(typeof problem.details.key === 'string' && { connector: problem.details.key }),
          code: problem.code,
        },
        problem.message,
      ),
    ...(options.releaseLimits && { releaseLimits: options.releaseLimits }),
    credentialStore: options.credentialStore ?? 'file',
    logger,
  });
  if (fresh && store.installed().length === 0) {
    for (const dir of options.demoConnectors ?? []) await store.install(dir);
  }
  // Nothing runs yet: every release no installed connector uses (or rolls back to) goes.
  await store.pruneReleases().then(
    (removed) => {
      if (removed.length > 0)
        logger.info({ removed }, 'removed releases no installed connector uses');
    },
    (error: unknown) =>
      logger.warn({ err: (error as Error)?.message }, 'removing unused releases failed'),
  );
  return store;
}
