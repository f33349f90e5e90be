/**
 * The sessions of the previous daemon come back once the servers listen and every
 * installed connector made its first attempt (ready, failed or stopped by its start
 * timeout), so a resumed agent's first tools/list already holds the connectors' tools.
 * Their old tokens are gone with that daemon. A daemon closing meanwhile restores none.
 */
import type { Logger } from 'pino';
import type { AgentSessionHost, SessionRecords } from '../session/index.js';

/** What bringing the previous daemon's sessions back needs. */
export interface RestoreOptions {
  readonly host: AgentSessionHost;
  readonly records: SessionRecords;
  /** Resolves once every installed connector made its first attempt. */
  readonly settled: Promise<unknown>;
  /** True once the daemon is closing. */
  readonly closing: () => boolean;
  readonly logger: Logger;
}

/** Restores the recorded sessions and logs how each fared; resolves once all are done. */
export async function restorePreviousSessions(options: RestoreOptions): Promise<void> {
  const { host, records, logger } = options;
  const results = await host.restoreSessions(
    options.settled.then(() =>
      options.closing()
        ? []
        : records.list((file, reason) =>
            logger.warn({ file }, `a session record could not be read: ${reason}`),
          ),
    ),
  );
  for (const { stored: session, info, error } of results) {
    const fields = { session: session.record.agentSessionId, provider: session.record.provider };
    if (error !== undefined) {
      logger.warn(fields, `a recorded session could not be restored: ${(error as Error).message}`);
    } else if (info?.status === 'needs-restart') {
      logger.warn(fields, info.reason ?? 'a recorded session needs a restart');
    } else {
      logger.info(fields, 'a session of the previous daemon is back');
    }
  }
}
