/**
 * Contracts between the agent session host, the preparer and provider plugins: what a
 * provider implements, what it is given, and the services the host depends on.
 */
import type { PreparedRuntime, ProviderCapabilities } from '../contracts/index.js';
import type { ProcessSupervisor } from '../process/index.js';
import type { SessionHooks } from './hooks.js';

/** Identity of one agent session, as hooks and providers see it. Holds no secrets. */
export interface SessionContext {
  /** The host's id of the agent session (the token is bound to it). */
  readonly agentSessionId: string;
  readonly workspaceId: string;
  /** Name of the provider that drives the session. */
  readonly provider: string;
  /** Capabilities the provider declared. */
  readonly capabilities: Readonly<ProviderCapabilities>;
}

/** Issues and revokes the per-session bearer tokens of the loopback `connector` server. */
export interface SessionTokenService {
  /** A fresh token bound to (workspace, agent session); re-issuing revokes the old one. */
  issue(workspaceId: string, agentSessionId: string): string | Promise<string>;
  /** Revokes every token of the agent session. */
  revokeSession(workspaceId: string, agentSessionId: string): unknown;
}

/** Stable port onto the connector subsystem; any method may throw when it is not ready. */
export interface ConnectorRuntimePort {
  /** URL of the loopback endpoint, e.g. `http://127.0.0.1:4711/mcp/connector`. */
  endpointUrl(): string | Promise<string>;
  /** Folder of the `tutti-connector-<key>` CLI shims (goes first on PATH). */
  shimBinDir(): string | Promise<string>;
  /** Skill root folders of the ready connectors. */
  skillRoots(): readonly string[] | Promise<readonly string[]>;
}

/** What the agent itself declared (e.g. in ACP `initialize`); decides the connector context. */
export interface AgentProbe {
  /** The agent's MCP client takes a Streamable HTTP server. */
  readonly httpMcp: boolean;
}

/** How to start the agent process; a provider's descriptor fills what is not given. */
export interface LaunchOptions {
  readonly command?: string;
  readonly args?: readonly string[];
  /** Extra environment on top of the prepared runtime's env. */
  readonly env?: Readonly<Record<string, string>>;
}

/** What the host hands a provider for one session. */
export interface ProviderSessionContext {
  readonly session: SessionContext;
  readonly cwd: string;
  /**
   * Environment to start the agent with before it is probed: the caller's env with the
   * shim bin dir first on PATH when the connector subsystem is up. Holds no secrets.
   */
  readonly env: Readonly<Record<string, string>>;
  readonly launch: LaunchOptions;
  readonly hooks: SessionHooks;
  /**
   * The daemon's process supervisor: spawn the agent through it (`spawnDetached` with
   * `processes`) so its process group dies with the daemon. Absent outside a daemon.
   */
  readonly processes?: ProcessSupervisor;
  /**
   * Prepares the session's runtime. Pass `undefined` when the probe failed: both that and
   * `httpMcp: false` yield a plain runtime (no binding, no skill roots, no guidance).
   */
  prepare(probe: AgentProbe | undefined): Promise<PreparedRuntime>;
}

/** A live session of one agent, as its provider drives it. */
export interface ProviderSession {
  /** The agent's own session id (ACP `sessionId`, Codex thread id, ...). */
  readonly providerSessionId: string;
  /** `bound` when the agent was given the connector binding, else `plain`. */
  readonly connector: 'bound' | 'plain';
  /** Process id of the agent, when the provider spawned one. */
  readonly pid?: number;
  /**
   * Native reload: makes the live agent take a freshly prepared runtime now. Call `rebind`
   * only when the agent can take it (it issues a new token, revoking the old one). Resolves
   * false when this agent cannot reload; absent when the provider never can.
   */
  reload?(rebind: () => Promise<PreparedRuntime>): Promise<boolean>;
  /** Arranges a reconnect of the MCP servers before the next turn; false when it cannot. */
  reconnectBeforeNextTurn?(): Promise<boolean>;
  /** Subscribes to the agent ending on its own (crash, exit). */
  onExit?(listener: (reason: string) => void): void;
  /** Ends the session; resolves once the agent's whole process group is gone. Idempotent. */
  close(): Promise<void>;
}

/** A provider: turns the prepared runtime into one kind of agent's sessions. */
export interface AgentProvider {
  /** Unique name, e.g. `opencode`; what callers pass as `provider`. */
  readonly name: string;
  /** What it can do; undeclared capabilities are false. */
  readonly capabilities: Readonly<Partial<ProviderCapabilities>>;
  /** Starts a new session. */
  newSession(context: ProviderSessionContext): Promise<ProviderSession>;
  /** Loads an earlier session by the agent's own id (history replayed). */
  loadSession?(
    context: ProviderSessionContext,
    providerSessionId: string,
  ): Promise<ProviderSession>;
  /** Resumes an earlier session by the agent's own id (no history replay). */
  resumeSession?(
    context: ProviderSessionContext,
    providerSessionId: string,
  ): Promise<ProviderSession>;
}

/** Parameters of a provider's wire request, transformed by `sessionNew/Load/Resume` taps. */
export type ProviderParams = Record<string, unknown>;
