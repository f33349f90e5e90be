/** Requests and results of the agent session host (see `host.ts`). */
import type { ProviderCapabilities } from '../contracts/index.js';
import type { ProcessSupervisor } from '../process/index.js';
import type { ListChangedListener } from '../registry/types.js';
import type { SessionHooks } from './hooks.js';
import type { GuidanceFunction, PlainReason } from './preparer.js';
import type {
  AgentProbe,
  ConnectorRuntimePort,
  LaunchOptions,
  SessionContext,
  SessionTokenService,
} from './types.js';

/** Where an agent session is in its life. */
export type AgentSessionStatus = 'starting' | 'ready' | 'prepared' | 'needs-restart' | 'exited';

/** Outcome of one refresh of one session. */
export interface RefreshRecord {
  readonly version: number;
  /** Name of the strategy that handled it; absent when the chain failed. */
  readonly strategy?: string;
  /** Message of the error that ended the chain (never a secret). */
  readonly error?: string;
}

/** A session as `listSessions()` shows it. Holds no secrets. */
export interface AgentSessionInfo {
  readonly id: string;
  readonly workspaceId: string;
  readonly provider: string;
  readonly providerSessionId?: string;
  readonly status: AgentSessionStatus;
  /** `bound`: the agent got the connector binding; `plain`: it did not; `none`: not prepared yet. */
  readonly connector: 'bound' | 'plain' | 'none';
  readonly pid?: number;
  readonly lastRefresh?: RefreshRecord;
  /** The last `tools/list` the agent's MCP client got answered with this session's token. */
  readonly toolsListed?: ToolsListedRecord;
}

/** A `tools/list` served to a session's agent: the snapshot version and its tool count. */
export interface ToolsListedRecord {
  readonly version: number;
  readonly toolCount: number;
}

/** What starting, loading or resuming a session needs. */
export interface StartSessionRequest {
  readonly provider: string;
  readonly workspaceId: string;
  readonly cwd: string;
  /** Base environment of the agent; the daemon's own env is not copied. */
  readonly env?: Readonly<Record<string, string>>;
  readonly launch?: LaunchOptions;
  /** Reuse an id (e.g. when resuming after a daemon restart); default a random UUID. */
  readonly agentSessionId?: string;
}

/** What the prepare-only form needs: for hosts that spawn the agent themselves. */
export interface PrepareOnlyRequest {
  readonly workspaceId: string;
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly agentSessionId?: string;
  /** Name recorded for the session (no provider is looked up). */
  readonly provider: string;
  readonly capabilities: Partial<ProviderCapabilities>;
  /** What the agent declared; default `{ httpMcp: capabilities.httpMcp }`. */
  readonly probe?: AgentProbe;
}

/** Options of {@link AgentSessionHost}. */
export interface AgentSessionHostOptions {
  readonly connector: ConnectorRuntimePort;
  readonly tokens: SessionTokenService;
  readonly hooks?: SessionHooks;
  readonly guidance?: GuidanceFunction;
  /** Registry whose visible changes trigger each live session's refresh chain. */
  readonly registry?: { onListChanged(listener: ListChangedListener): () => void };
  /** True when the connector server pushes `tools/list_changed` to agent MCP clients. */
  readonly listChangedDelivered?: boolean;
  readonly onPlain?: (session: SessionContext, reason: PlainReason, cause?: unknown) => void;
  /** Supervisor handed to providers, so agent process groups die with the daemon. */
  readonly processes?: ProcessSupervisor;
}
