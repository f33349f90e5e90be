/** Requests, results and options of the agent session host (see `host.ts`). */
import type { PendingElicitations, PreparedRuntime, ProviderFlags } from '../contracts/index.js';
import type { TuttiEventBody } from '../events/index.js';
import type { ProcessSupervisor } from '../process/index.js';
import type { SecretRedactor } from '../process/secret-redactor.js';
import type { ListChangedListener } from '../registry/types.js';
import type { Tracer } from '../telemetry/types.js';
import type { GuidanceFunction, PlainReason } from './preparer.js';
import type { SessionRecords } from './session-records.js';
import type { PermissionMode } from './turn-types.js';

export type { PendingElicitationInfo } from './pending-elicitation.js';
import type {
  AgentAuthMethod,
  ConnectorRuntimePort,
  LaunchOptions,
  ProviderParams,
  SessionContext,
  SessionTokenService,
} from './session-types.js';

/** Where an agent session is in its life. */
export type AgentSessionStatus = 'starting' | 'ready' | 'prepared' | 'needs-restart' | 'exited';

/** Who drives the agent: the daemon spawned it, or the host did from a projection. */
export type SessionMode = 'daemon' | 'host';

/** Outcome of one refresh of one session. */
export interface RefreshRecord {
  readonly version: number;
  /** Name of the strategy that handled it; absent when the chain failed. */
  readonly strategy?: string;
  /** Message of the error that ended the chain (never a secret). */
  readonly error?: string;
}

/** How a session's agent ended, when it ended on its own. Holds no secret. */
export interface SessionExit {
  readonly code: number | null;
  readonly signal: string | null;
  /** e.g. `exit code 1`. */
  readonly description: string;
  /** The agent's last stderr lines, known secrets redacted. */
  readonly stderr: readonly string[];
}

/** A session as `listSessions()` shows it. Holds no secrets. */
export interface AgentSessionInfo {
  readonly id: string;
  readonly workspaceId: string;
  readonly provider: string;
  readonly mode: SessionMode;
  readonly providerSessionId?: string;
  readonly status: AgentSessionStatus;
  /** `bound`: the agent got the connector binding; `plain`: it did not; `none`: not prepared yet. */
  readonly connector: 'bound' | 'plain' | 'none';
  /** What its agent's tools may do without asking. */
  readonly permissions: PermissionMode;
  readonly pid?: number;
  readonly lastRefresh?: RefreshRecord;
  /** The last `tools/list` the agent's MCP client got answered with this session's token. */
  readonly toolsListed?: ToolsListedRecord;
  /** Why the session ended or needs a restart. */
  readonly reason?: string;
  /** How its agent ended, when it ended on its own. */
  readonly exit?: SessionExit;
  /**
   * How long each step of the last start took, in ms and in order (`prelaunch`, `spawn`,
   * `handshake`, `prepare`, `project`, `materialize`, `open`): where a slow start spends it.
   */
  readonly startSteps?: Readonly<Record<string, number>>;
  /** How its agent says a person signs in to it (ACP `authMethods`), when it named any. */
  readonly authMethods?: readonly AgentAuthMethod[];
}

/** A `tools/list` served to a session's agent: the snapshot version, its tool count, when. */
export interface ToolsListedRecord {
  readonly version: number;
  readonly toolCount: number;
  /** When it was answered (ms since the epoch). */
  readonly at: number;
}

/** What starting, loading or resuming a session needs. */
export interface StartSessionRequest {
  readonly provider: string;
  readonly workspaceId: string;
  readonly cwd: string;
  /** Environment over the daemon's own (minus its control variables and nesting guards). */
  readonly env?: Readonly<Record<string, string>>;
  readonly launch?: LaunchOptions;
  /** Reuse an id (e.g. when resuming after a daemon restart); default a random UUID. */
  readonly agentSessionId?: string;
  /** What the agent's tools may do without asking (default `ask`). */
  readonly permissions?: PermissionMode;
  /** Settings of the provider to turn on (see `GET /v1/providers`). */
  readonly settings?: readonly string[];
}

/** A provider's projection for a host that spawns the agent itself. */
export interface PreparedProjection {
  /** The provider's final params (ACP session params, a Codex config table, SDK options). */
  readonly params: ProviderParams;
  /** Environment to start the agent with, on top of `runtime.env`. */
  readonly env: Readonly<Record<string, string>>;
  /** Arguments to add to the agent's command line, if any. */
  readonly args?: readonly string[];
}

/** What the host-driven form of one provider needs. */
export interface PrepareSessionRequest {
  readonly provider: string;
  readonly workspaceId: string;
  readonly cwd: string;
  /** The agent's environment as the host will start it (the daemon's own is not copied). */
  readonly env?: Readonly<Record<string, string>>;
  readonly agentSessionId?: string;
  /** What the agent declared in its handshake (ACP `agentCapabilities`), for kinds with one. */
  readonly agentCapabilities?: Readonly<Record<string, unknown>>;
  /** What the agent's tools may do without asking (default `ask`). */
  readonly permissions?: PermissionMode;
  /** Settings of the provider to turn on (see `GET /v1/providers`). */
  readonly settings?: readonly string[];
}

/** What the provider-neutral prepare-only form needs. */
export interface PrepareOnlyRequest {
  readonly workspaceId: string;
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly agentSessionId?: string;
  /** Name recorded for the session (no provider is looked up). */
  readonly provider: string;
  readonly flags: ProviderFlags;
}

/** Result of the prepare forms. */
export interface PreparedSession {
  readonly agentSessionId: string;
  readonly runtime: PreparedRuntime;
  /** Absent for the provider-neutral form. */
  readonly projection?: PreparedProjection;
}

/** Options of {@link AgentSessionHost}. */
export interface AgentSessionHostOptions {
  readonly connector: ConnectorRuntimePort;
  readonly tokens: SessionTokenService;
  readonly guidance?: GuidanceFunction;
  /** Registry whose visible changes trigger each live session's refresh chain. */
  readonly registry?: { onListChanged(listener: ListChangedListener): () => void };
  /** True when the connector server pushes `tools/list_changed` to agent MCP clients. */
  readonly listChangedDelivered?: boolean;
  readonly onPlain?: (session: SessionContext, reason: PlainReason, cause?: unknown) => void;
  /** Supervisor of agent processes, so their groups die with the daemon. */
  readonly processes?: ProcessSupervisor;
  /** Folder that holds each session's own folder (default: the OS temp folder). */
  readonly sessionsDir?: string;
  /** Environment daemon-driven agents inherit (default: this process's, filtered). */
  readonly inheritedEnv?: Readonly<Record<string, string>>;
  /** Where session events go. */
  readonly events?: { publish(event: TuttiEventBody): void };
  /** Masks known secrets in the stderr lines sessions report. */
  readonly redactor?: SecretRedactor;
  /** Most sessions held at once (default 64). */
  readonly maxSessions?: number;
  /**
   * Longest time an agent may take to start a session, and to answer any one request
   * (default 60 s); past it the start fails and the agent is stopped.
   */
  readonly agentTimeoutMs?: number;
  /**
   * How long a turn's permission request waits for an answer before it is denied, and an
   * elicitation before it is cancelled (default 5 min).
   */
  readonly permissionTimeoutMs?: number;
  /**
   * The elicitations the `connector` server relayed to agents and waits on: what proves the
   * connector and tool of an `elicitation` turn event, and what `pendingElicitations()` lists.
   */
  readonly elicitations?: PendingElicitations;
  /** How long after the host's start every recorded session is back or `needs-restart` (default 60 s). */
  readonly restoreWithinMs?: number;
  /** Where daemon-driven sessions are recorded, so they can come back after a restart. */
  readonly records?: SessionRecords;
  /** Told about a session error nobody else reports (a refresh that failed, a close that failed). */
  readonly onProblem?: (session: SessionContext, message: string) => void;
  /**
   * Makes the spans of daemon-driven turns: the turn's, each tool call's, each permission's
   * (see `docs/tracing.md`); default the pass-through tracer, which records none.
   */
  readonly tracer?: Tracer;
}
