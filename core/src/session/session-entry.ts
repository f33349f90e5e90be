/**
 * One session as the host keeps it: identity, mode, the processes started for it, its
 * folder, its live handle and what happened to it; and the `SessionSetup` its provider gets,
 * whose `spawn` is the one way an agent process is started.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { type AgentProcess, type AgentSpawnSpec, spawnAgent } from '../process/agent-process.js';
import type { ProcessSupervisor } from '../process/index.js';
import type { SecretRedactor } from '../process/secret-redactor.js';
import type {
  AgentSessionInfo,
  AgentSessionStatus,
  PreparedProjection,
  RefreshRecord,
  SessionExit,
  SessionMode,
  ToolsListedRecord,
} from './host-types.js';
import type {
  LiveSession,
  ResolvedLaunch,
  RuntimePreview,
  SessionSetup,
} from './provider-contract.js';
import type { TurnRunner } from './turn-runner.js';
import { type SessionFiles, sessionFiles } from './session-files.js';
import type { SessionRecord, StoredSession } from './session-records.js';
import type { SessionContext, SessionOperation } from './session-types.js';

/** The host's record of one session. */
export interface SessionEntry {
  readonly session: SessionContext;
  readonly mode: SessionMode;
  readonly cwd: string;
  /** Environment the preparer starts from. */
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly files: SessionFiles;
  status: AgentSessionStatus;
  connector: 'bound' | 'plain' | 'none';
  operation: SessionOperation;
  declared?: Readonly<Record<string, unknown>>;
  handle?: LiveSession;
  /** The session's current agent process (the newest one spawned). */
  agent?: AgentProcess;
  readonly processes: Set<AgentProcess>;
  lastRefresh?: RefreshRecord;
  toolsListed?: ToolsListedRecord;
  /** The tools of the last `tools/list` answered to the session's token (what proves a connector call). */
  servedTools?: readonly { readonly name: string }[];
  reason?: string;
  exit?: SessionExit;
  /** Host-driven sessions: the newest projection, for the host to fetch. */
  projection?: PreparedProjection;
  /** The turn running now (daemon-driven sessions). */
  turn?: TurnRunner;
  /** A turn waits for the session's refresh before it starts. */
  turnStarting?: boolean;
  refreshing: Promise<unknown>;
  /** How long each step of the last start took (ms), in order. */
  startSteps?: Record<string, number>;
  /** Whether the session has had a turn (it then comes back with its history, not afresh). */
  turns: boolean;
  /** The session's record, as last written (daemon-driven sessions of a host with records). */
  record?: SessionRecord;
  /** What restarts a session listed `needs-restart`. */
  stored?: StoredSession;
  /** Undo functions of secrets registered with the redactor for this session. */
  readonly forget: (() => void)[];
}

/** Runs code on behalf of one session: an error escaping it is blamed on that session. */
export const sessionScope = new AsyncLocalStorage<string>();

/** The id of the session whose code is running, when it is one's. */
export function currentSessionId(): string | undefined {
  return sessionScope.getStore();
}

/** The folder of a session's files: a name no caller-given id can steer outside `root`. */
export function sessionDir(root: string, provider: string, agentSessionId: string): string {
  const tag = provider.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 40);
  const hash = createHash('sha256').update(agentSessionId).digest('hex').slice(0, 20);
  return join(root, `tutti-${tag}-${hash}`);
}

/** A new entry, `starting`. */
export function createEntry(input: {
  session: SessionContext;
  mode: SessionMode;
  cwd: string;
  baseEnv: Readonly<Record<string, string>>;
  sessionsDir: string;
  operation: SessionOperation;
}): SessionEntry {
  return {
    session: input.session,
    mode: input.mode,
    cwd: input.cwd,
    baseEnv: Object.freeze({ ...input.baseEnv }),
    files: sessionFiles(
      sessionDir(input.sessionsDir, input.session.provider, input.session.agentSessionId),
    ),
    status: 'starting',
    connector: 'none',
    operation: input.operation,
    processes: new Set(),
    refreshing: Promise.resolve(),
    turns: false,
    forget: [],
  };
}

/** The entry as `listSessions()` shows it. */
export function entryInfo(entry: SessionEntry): AgentSessionInfo {
  const pid = entry.agent?.pid;
  return {
    id: entry.session.agentSessionId,
    workspaceId: entry.session.workspaceId,
    provider: entry.session.provider,
    mode: entry.mode,
    status: entry.status,
    connector: entry.connector,
    permissions: entry.session.permissions,
    ...(entry.handle ? { providerSessionId: entry.handle.providerSessionId } : {}),
    ...(pid ? { pid } : {}),
    ...(entry.startSteps ? { startSteps: { ...entry.startSteps } } : {}),
    ...(entry.lastRefresh ? { lastRefresh: entry.lastRefresh } : {}),
    ...(entry.toolsListed ? { toolsListed: entry.toolsListed } : {}),
    ...(entry.reason ? { reason: entry.reason } : {}),
    ...(entry.exit ? { exit: entry.exit } : {}),
  };
}

/** What the setup's `spawn` needs besides the entry. */
export interface SpawnServices {
  readonly processes?: ProcessSupervisor | undefined;
  readonly redactor?: SecretRedactor | undefined;
  /** Called when the session's current agent ends without the host stopping it. */
  onAgentExit(entry: SessionEntry, agent: AgentProcess): void;
  /** What a bound runtime of the session would carry (see `SessionSetup.preview`). */
  preview?(entry: SessionEntry): Promise<RuntimePreview | undefined>;
}

/** The setup a provider's methods get for `entry`. */
export function createSetup(
  entry: SessionEntry,
  launch: ResolvedLaunch,
  services: SpawnServices,
  timeoutMs: number,
  settings: readonly string[],
): SessionSetup {
  const provider = entry.session.provider;
  return Object.freeze({
    session: entry.session,
    cwd: entry.cwd,
    launch,
    files: entry.files,
    timeoutMs,
    settings: Object.freeze([...settings]),
    preview: async () => services.preview?.(entry),
    spawn(spec: Partial<AgentSpawnSpec> = {}) {
      const command = spec.command ?? launch.command;
      if (!command) throw new TuttiError('TUTTI_ERR_PROVIDER_NO_COMMAND', { provider });
      const agent = sessionScope.run(entry.session.agentSessionId, () =>
        spawnAgent(
          {
            command,
            args: spec.args ?? launch.args,
            cwd: spec.cwd ?? entry.cwd,
            env: { ...launch.env, ...spec.env },
            ...(spec.signal ? { signal: spec.signal } : {}),
          },
          { provider, processes: services.processes, redactor: services.redactor },
        ),
      );
      entry.processes.add(agent);
      entry.agent = agent;
      void agent.exited.then(() => {
        entry.processes.delete(agent);
        if (entry.agent === agent && !agent.exit?.expected) services.onAgentExit(entry, agent);
      });
      return agent;
    },
  });
}

/** The exit record of a session whose agent ended on its own. */
export function exitOf(agent: AgentProcess): SessionExit | undefined {
  const exit = agent.exit;
  if (!exit) return undefined;
  return Object.freeze({
    code: exit.code,
    signal: exit.signal,
    description: exit.description,
    stderr: exit.stderr,
  });
}
