/**
 * The data the session host, the preparer, hooks and providers share: who a session is,
 * the services the host depends on, and what an agent declared. Holds no hook or provider
 * type, so every other session module may import it.
 */
import type { ProviderFlags } from '../contracts/index.js';
import type { PermissionMode } from './turn-types.js';

/** Identity of one agent session, as hooks and providers see it. Holds no secrets. */
export interface SessionContext {
  /** The host's id of the agent session (the token is bound to it). */
  readonly agentSessionId: string;
  readonly workspaceId: string;
  /** Name of the provider that drives the session. */
  readonly provider: string;
  /** The flags the provider declared. */
  readonly capabilities: Readonly<ProviderFlags>;
  /** What the agent's tools may do without asking (`ask` unless the request said otherwise). */
  readonly permissions: PermissionMode;
}

/** Which wire operation opens a session. */
export type SessionOperation = 'new' | 'load' | 'resume';

/** What a projection tap is told besides the runtime: the session and how it is opened. */
export interface SessionHookContext extends SessionContext {
  readonly operation: SessionOperation;
  /** The agent's own id of the session being loaded or resumed. */
  readonly providerSessionId?: string;
  /** What the agent declared in its handshake (e.g. ACP `agentCapabilities`), if it has one. */
  readonly declared?: Readonly<Record<string, unknown>>;
  /** The session's own folder (mode 0700, removed when the session ends). */
  readonly filesDir: string;
  /** `daemon`: the daemon drives the agent (turns, permissions); `host`: the host does. */
  readonly drivenBy: 'daemon' | 'host';
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

/**
 * One way the agent says a person signs in to it (ACP `authMethods` of `initialize`):
 * shown to the host in the session's info, so it can tell the person what to do.
 */
export interface AgentAuthMethod {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
}

/** What the agent itself declared; decides the connector context. */
export interface AgentProbe {
  /** The agent's MCP client takes a Streamable HTTP server. */
  readonly httpMcp: boolean;
}

/** How to start the agent process; the provider's defaults fill what is not given. */
export interface LaunchOptions {
  readonly command?: string;
  readonly args?: readonly string[];
  /** Extra environment on top of the session's env. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Parameters of a provider's session request, transformed by the projection hooks. */
export type ProviderParams = Record<string, unknown>;

/**
 * The params type of each provider, by name. Providers add theirs by declaration merging:
 * @example declare module '@tutti/core' { interface ProviderParamsMap { codex: CodexSessionConfig } }
 */
// biome-ignore lint/suspicious/noEmptyInterface: extended by providers through declaration merging
export interface ProviderParamsMap {}

/** The params type of provider `N` ({@link ProviderParams} when it declared none). */
export type ParamsOf<N extends string> = N extends keyof ProviderParamsMap
  ? ProviderParamsMap[N]
  : ProviderParams;
