/**
 * The end of a session's processes and credentials: its provider's protocol-level close
 * (bounded), every agent process stopped, its folder removed unless it is kept for a
 * restart, its token revoked, and what it registered (masked secrets) forgotten.
 */
import type { SessionTokenService } from './session-types.js';
import type { SessionEntry } from './session-entry.js';

/** How long a provider's protocol-level close may take before the processes are stopped. */
const CLOSE_TIMEOUT_MS = 3_000;

/** What a teardown keeps. */
export interface TeardownOptions {
  /** Keep the session folder (a daemon-driven session that comes back at the next start). */
  readonly keepFiles?: boolean;
}

/** Closes the handle (bounded), then {@link stopSession}. */
export async function dropSession(
  entry: SessionEntry,
  tokens: SessionTokenService,
  options: TeardownOptions = {},
): Promise<void> {
  entry.turn?.cancel();
  await entry.refreshing.catch(() => {});
  const close = entry.handle?.close?.();
  if (close) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
    });
    await Promise.race([close.catch(() => {}), timeout]);
    clearTimeout(timer);
  }
  await stopSession(entry, tokens, options);
}

/** Stops every process, removes the folder, revokes the token, forgets what it registered. */
export async function stopSession(
  entry: SessionEntry,
  tokens: SessionTokenService,
  options: TeardownOptions = {},
): Promise<void> {
  await Promise.allSettled([...entry.processes].map((agent) => agent.terminate()));
  if (entry.agent) await entry.agent.terminate().catch(() => {});
  if (!options.keepFiles) await entry.files.remove().catch(() => {});
  const { workspaceId, agentSessionId } = entry.session;
  try {
    await tokens.revokeSession(workspaceId, agentSessionId);
  } catch {
    // A token service that cannot revoke has nothing left to revoke for this session.
  }
  for (const forget of entry.forget.splice(0)) forget();
}
