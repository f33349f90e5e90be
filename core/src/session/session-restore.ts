/**
 * Daemon-driven sessions across a daemon restart: the record a started session keeps, and
 * how recorded sessions come back (resumed when the provider can, else loaded, a few at a
 * time; one that cannot come back is listed `needs-restart` with every reason).
 */
import type {
  AgentSessionHostOptions,
  AgentSessionInfo,
  StartSessionRequest,
} from './host-types.js';
import type { AgentProvider } from './provider-contract.js';
import type { SessionEntry } from './session-entry.js';
import type { SessionRecord, StoredSession } from './session-records.js';

/** Recorded sessions brought back at once after a restart (each spawns an agent). */
const RESTORE_CONCURRENCY = 4;

/** The record of a started daemon-driven session (no secret: its env is stored apart). */
export function sessionRecordOf(
  entry: SessionEntry,
  request: StartSessionRequest,
  providerSessionId: string,
  startedAt: string,
): SessionRecord {
  return {
    agentSessionId: entry.session.agentSessionId,
    workspaceId: entry.session.workspaceId,
    provider: entry.session.provider,
    ...(providerSessionId ? { providerSessionId } : {}),
    cwd: entry.cwd,
    launch: {
      ...(request.launch?.command ? { command: request.launch.command } : {}),
      ...(request.launch?.args ? { args: [...request.launch.args] } : {}),
    },
    permissions: entry.session.permissions,
    settings: [...(request.settings ?? [])],
    startedAt,
  };
}

/** The start request that brings a recorded session back. */
export function restoreRequest(stored: StoredSession): StartSessionRequest {
  const { record } = stored;
  return {
    provider: record.provider,
    workspaceId: record.workspaceId,
    cwd: record.cwd,
    env: stored.env,
    agentSessionId: record.agentSessionId,
    permissions: record.permissions,
    settings: record.settings,
    launch: { ...record.launch, env: stored.launchEnv },
  };
}

/** What bringing one session back needs of the host. */
export interface RestoreServices {
  provider(name: string): AgentProvider | undefined;
  /** Starts the session again through `operation`. */
  start(
    request: StartSessionRequest,
    operation: 'resume' | 'load',
    providerSessionId: string,
    startedAt: string,
  ): Promise<AgentSessionInfo>;
  /** Lists the session as `needs-restart` with `reason`. */
  needsRestart(request: StartSessionRequest, reason: string): AgentSessionInfo;
}

/** Brings one recorded session back, or lists it needs-restart saying why it could not. */
export async function restoreRecorded(
  services: RestoreServices,
  stored: StoredSession,
): Promise<AgentSessionInfo> {
  const { record } = stored;
  const request = restoreRequest(stored);
  const provider = services.provider(record.provider);
  const reasons: string[] = [];
  if (!provider) reasons.push(`no provider named "${record.provider}" is registered`);
  else if (!record.providerSessionId) reasons.push('the agent never named its session');
  else {
    for (const operation of ['resume', 'load'] as const) {
      const can = operation === 'resume' ? provider.resumeSession : provider.loadSession;
      if (!can) continue;
      try {
        return await services.start(request, operation, record.providerSessionId, record.startedAt);
      } catch (error) {
        reasons.push(`${operation}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (reasons.length === 0)
      reasons.push(`provider "${record.provider}" can neither resume nor load`);
  }
  return services.needsRestart(
    request,
    `the session could not come back after the daemon restarted: ${reasons.join('; ')}`,
  );
}

/** How one recorded session fared. */
export interface RestoreResult {
  readonly stored: StoredSession;
  readonly info?: AgentSessionInfo;
  readonly error?: unknown;
}

/**
 * Brings back every stored session with `restoreOne`, RESTORE_CONCURRENCY at a time, then
 * publishes `sessions.restored` with how many came back.
 */
export async function restoreAll(
  stored: readonly StoredSession[],
  restoreOne: (session: StoredSession) => Promise<AgentSessionInfo>,
  events: AgentSessionHostOptions['events'],
): Promise<RestoreResult[]> {
  const results: RestoreResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < stored.length) {
      const session = stored[next++]!;
      try {
        results.push({ stored: session, info: await restoreOne(session) });
      } catch (error) {
        results.push({ stored: session, error });
      }
    }
  };
  const workers = Math.min(RESTORE_CONCURRENCY, stored.length);
  await Promise.all(Array.from({ length: workers }, worker));
  const ready = results.filter((result) => result.info?.status === 'ready').length;
  events?.publish({
    type: 'sessions.restored',
    resumed: ready,
    needsRestart: results.length - ready,
  });
  return results;
}
