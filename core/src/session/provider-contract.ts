/**
 * What a provider is: the few methods that differ between kinds of agents. The session host
 * drives every step around them (spawn, probe, prepare, projection, third-party taps,
 * binding check, open, refresh, close); a provider never re-implements one. A provider
 * projects and makes a driver per session; optional driver methods are the steps its kind
 * needs (one with `handshake` is spawned and asked before its session is prepared), and a
 * live session's optional methods are what it can take when the tools change.
 */
import type { MCPServerBinding, PreparedRuntime, ProviderFlags } from '../contracts/index.js';
import type { AgentProcess, AgentSpawnSpec } from '../process/agent-process.js';
import type { SessionFiles } from './session-files.js';
import type { ToolNameForm } from './tool-proof.js';
import type { PermissionMode, PromptBlock, StopReason, TurnSink } from './turn-types.js';
import type { Reopening } from './operations.js';
import type {
  AgentAuthMethod,
  AgentProbe,
  LaunchOptions,
  ParamsOf,
  ProviderParams,
  SessionContext,
  SessionHookContext,
  SessionOperation,
} from './session-types.js';

/** The launch of one session: the provider's defaults under the request's. */
export interface ResolvedLaunch {
  /** Undefined when neither the provider nor the request names a command. */
  readonly command: string | undefined;
  readonly args: readonly string[];
  /**
   * The agent's whole environment: the daemon's own (minus its control variables and
   * agents' nesting guards), the provider's, the request's, the shim folder first on PATH.
   */
  readonly env: Readonly<Record<string, string>>;
}

/** What the host gives a provider's methods for one session. */
export interface SessionSetup {
  readonly session: SessionContext;
  readonly cwd: string;
  readonly launch: ResolvedLaunch;
  /** The session's own folder (0700), removed when the session ends. */
  readonly files: SessionFiles;
  /** Longest time one request to the agent may take (the host's agent timeout). */
  readonly timeoutMs: number;
  /** Settings of the provider the session request turned on (e.g. trusting the workspace). */
  readonly settings: readonly string[];
  /**
   * Starts an agent process: the one way to, for every provider. Missing fields come from
   * `launch` (`env` is merged over it). The newest process is the session's agent: its
   * exit ends the session, and closing the session stops every process started here.
   */
  spawn(spec?: Partial<AgentSpawnSpec>): AgentProcess;
  /**
   * What the session's runtime would carry if it is bound, asked before the agent starts
   * (for an agent that reads its instructions only then); no token is issued. Undefined
   * when the session could not be bound now. The prepared runtime may still differ.
   */
  preview?(): Promise<RuntimePreview | undefined>;
}

/** The connector context a bound runtime would carry, before it is prepared. */
export interface RuntimePreview {
  /** The URL of the `connector` server (the binding's, without its token). */
  readonly url: string;
  readonly skillRoots: readonly string[];
  readonly guidance?: string;
}

/** What a driver's `open` is given. */
export interface OpenRequest<P> {
  /** How the session is opened (see `SESSION_OPERATIONS`). */
  readonly operation: SessionOperation;
  /** The final params, after the projection, every third-party tap and the binding check. */
  readonly params: P;
  readonly runtime: PreparedRuntime;
  /** The spawned agent, for kinds with a handshake. */
  readonly agent: AgentProcess | undefined;
  /** The agent's own id of the session being loaded or resumed. */
  readonly providerSessionId?: string;
  /** Environment `prelaunch` and `materialize` added, to spawn with. */
  readonly env: Readonly<Record<string, string>>;
}

/** Freshly projected params of a live session, with the runtime (and token) they carry. */
export interface Reprojection<P = ProviderParams> {
  readonly runtime: PreparedRuntime;
  readonly params: P;
}

/**
 * Prepares the session again (a fresh token, which revokes the old one) and projects it for
 * `operation`, third-party taps included; ask only once the agent can take the result.
 */
export type Reproject<P = ProviderParams> = (
  operation: SessionOperation,
) => Promise<Reprojection<P>>;

/**
 * What a live agent can take when the tools change; which of these methods a session has
 * decides its refresh (see `docs/hooks.md`).
 */
export interface LiveRefresh<P = ProviderParams> {
  /**
   * Native reload: when the agent can, asks `reproject` for params of the operation it
   * re-sends and makes the agent take them now; false when it cannot (ask no `reproject`).
   */
  reload?(reproject: Reproject<P>): Promise<boolean>;
  /** Arranges a reconnect of the agent's MCP servers before its next turn; false when it cannot. */
  reconnectBeforeNextTurn?(): Promise<boolean>;
}

/** A live session as its provider drives it. Optional methods are what it can do. */
export interface LiveSession<P = ProviderParams> extends LiveRefresh<P> {
  /** The agent's own session id (ACP `sessionId`, Codex thread id, ...). */
  readonly providerSessionId: string;
  /**
   * Runs one turn: sends the prompt, streams what the agent does to `sink`, asks `sink`
   * before a tool runs when the agent asks, interrupts the agent when `sink.signal` aborts,
   * and resolves how the turn ended. Absent: the agent takes no turns through the daemon.
   */
  turn?(prompt: readonly PromptBlock[], sink: TurnSink): Promise<StopReason>;
  /** Ends the session at protocol level (e.g. ACP `session/close`); the host stops the processes after. */
  close?(): Promise<void>;
}

/** What `prelaunch` or `materialize` wrote for the agent to read at start. */
export interface Materialized {
  /** Environment to start the agent with (e.g. `CODEX_HOME` pointing at a written home). */
  readonly env?: Readonly<Record<string, string>>;
  /** Arguments added to the agent's command line (`prelaunch` only). */
  readonly args?: readonly string[];
  /**
   * `materialize` only, kinds with a handshake: the agent already running read at start what
   * was just rewritten; the host starts it again the way it started it and repeats the
   * handshake, which must answer.
   */
  readonly respawn?: boolean;
}

/**
 * The per-session part of a provider: `open`, and the optional steps its kind needs. It
 * holds the session's state between the steps (a protocol connection, what prelaunch
 * wrote); the host calls each step once, in the order of `docs/writing-a-provider.md`.
 */
export interface SessionDriver<P = ProviderParams> {
  /**
   * Kinds with a handshake: writes what the agent needs before it starts (a home it is
   * pointed at, settings the session turned on); holds no connector context yet, which
   * `materialize` adds once the handshake said the session is bound.
   */
  prelaunch?(): Promise<Materialized | undefined>;
  /**
   * Present for kinds that talk to the agent before its session is prepared (ACP
   * `initialize`): the host spawns the agent first and calls this on it. Answers what the
   * agent declared (ACP `agentCapabilities`); undefined when it did not answer.
   */
  handshake?(agent: AgentProcess): Promise<Readonly<Record<string, unknown>> | undefined>;
  /**
   * After `handshake`: how the agent says a person signs in to it (ACP `authMethods`),
   * shown to the host in the session's info; empty when it named none.
   */
  authMethods?(): readonly AgentAuthMethod[];
  /** Writes what the agent reads at start from the final params (a config home, a plugin folder). */
  materialize?(params: P, runtime: PreparedRuntime): Promise<Materialized | undefined>;
  /** Opens the session: new, or an earlier one by the agent's own id. */
  open(request: OpenRequest<P>): Promise<LiveSession<P>>;
  /**
   * A host-driven session: what the host's own agent, which `declared` this in its
   * handshake, can take live (the refresh methods its live session would have). Absent: it
   * takes nothing live, and the host is asked to resume or restart it.
   */
  hosted?(declared: Readonly<Record<string, unknown>> | undefined): LiveRefresh<P>;
}

/**
 * How a provider makes its agent route tool approvals to the daemon. A provider without it
 * honours only `agent` (the agent's own rules): the daemon cannot make its agent ask.
 */
export interface ProviderPermissions {
  /**
   * The modes, besides `agent`, whose promise the provider keeps: under them its agent asks
   * the daemon before every tool call (checked by the real effect in its tests).
   */
  readonly modes: readonly Exclude<PermissionMode, 'agent'>[];
  /**
   * How its agent names an MCP tool in the structured identity it gives
   * (e.g. `mcp__{server}__{tool}`); what proves a call is a `connector` tool.
   */
  readonly toolNames: readonly ToolNameForm[];
  /**
   * Variables that would override what makes the agent ask: removed from its environment
   * under the modes it keeps (never under `agent`).
   */
  readonly clearEnv?: readonly string[];
}

/**
 * One kind of agent; `P` is its params type (by default the one `ProviderParamsMap` names).
 * The host calls its methods; its hooks are for other plugins (see `docs/hooks.md`).
 */
export interface AgentProvider<N extends string = string, P = ParamsOf<N>> {
  /** Unique name, e.g. `opencode`; what callers pass as `provider`. */
  readonly name: N;
  /** What no method can say. */
  readonly flags: Readonly<ProviderFlags>;
  /** How to start the agent when the request does not say. */
  readonly launch?: LaunchOptions;
  /** The permission modes it honours and its agent's tool naming forms. */
  readonly permissions?: ProviderPermissions;
  /** Earlier sessions it opens again by the agent's own id: `load` (history replayed), `resume`. */
  readonly reopens?: readonly Reopening[];
  /**
   * The prepared runtime as this agent's own params for `session.operation` (a session
   * request, a config table, SDK options); third-party taps of its hooks may change them.
   */
  project(runtime: PreparedRuntime, session: SessionHookContext): P | Promise<P>;
  /** The MCP server bindings `params` carry, read back for the host's binding check. */
  bindingsIn(params: P): readonly MCPServerBinding[];
  /** What an agent's declaration means for the connector context; kinds with a handshake. */
  probeOf?(declared: Readonly<Record<string, unknown>>): AgentProbe;
  /** The driver of one session. */
  driver(setup: SessionSetup): SessionDriver<P>;
}

/**
 * Typed identity helper for a provider.
 * @example host.registerProvider(defineAgentProvider({ name: 'x', flags, project, bindingsIn, driver }));
 */
export function defineAgentProvider<N extends string, P = ParamsOf<N>>(
  provider: AgentProvider<N, P>,
): AgentProvider<N, P> {
  return provider;
}
