/**
 * A daemon-driven session and its record: what the record of a started session holds, and
 * the start request that brings a recorded session back.
 */
import type { StartSessionRequest } from './host-types.js';
import type { SessionRecord, StoredSession } from './session-records.js';
import type { SessionContext } from './session-types.js';

/** The record of a started daemon-driven session (no secret: its env is stored apart). */
export function sessionRecordOf(
  session: { readonly context: SessionContext; readonly cwd: string },
  request: StartSessionRequest,
  providerSessionId: string,
  startedAt: string,
  turns: boolean,
): SessionRecord {
  return {
    agentSessionId: session.context.agentSessionId,
    workspaceId: session.context.workspaceId,
    provider: session.context.provider,
    ...(providerSessionId ? { providerSessionId } : {}),
    cwd: session.cwd,
    launch: {
      ...(request.launch?.command ? { command: request.launch.command } : {}),
      ...(request.launch?.args ? { args: [...request.launch.args] } : {}),
    },
    permissions: session.context.permissions,
    settings: [...(request.settings ?? [])],
    startedAt,
    turns,
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
