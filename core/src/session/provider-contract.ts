/**
 * What a provider is: the few methods that differ between kinds of agents. The session host
 * drives every step around them (spawn, probe, prepare, projection hooks, binding check,
 * open, refresh, close); a provider never re-implements one. Its projection and refresh
 * fallbacks are taps on its own hooks (see `hooks.ts`). Optional methods are the
 * capabilities: a provider without `loadSession` cannot load, one with `handshake` is
 * spawned and asked before its session is prepared.
 */
import type { MCPServerBinding, PreparedRuntime, ProviderFlags } from '../contracts/index.js';
import type { AgentProcess, AgentSpawnSpec } from '../process/agent-process.js';
import type { SessionFiles } from './session-files.js';
import type { ToolNameForm } from './tool-proof.js';
import type { PermissionMode, PromptBlock, StopReason, TurnSink } from './turn-types.js';
import type {
  AgentProbe,
  LaunchOptions,
  ParamsOf,
  ProviderParams,
  SessionContext,
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

/** What a handshake found out about the agent. */
export interface Handshake<S> {
  /** What the agent declared (e.g. ACP `agentCapabilities`); undefined when it did not answer. */
  readonly declared: Readonly<Record<string, unknown>> | undefined;
  /** The provider's own state for `open` (e.g. the protocol connection). */
  readonly state: S;
}

/** What `newSession`, `loadSession` and `resumeSession` are given. */
export interface OpenRequest<P, S> {
  readonly setup: SessionSetup;
  /** The final params, after every projection tap and the binding check. */
  readonly params: P;
  readonly runtime: PreparedRuntime;
  /** The handshake's state (undefined for kinds without a handshake). */
  readonly state: S;
  /** The spawned agent, for kinds with a handshake. */
  readonly agent: AgentProcess | undefined;
  /** The agent's own id of the session being loaded or resumed. */
  readonly providerSessionId?: string;
  /** Environment `materialize` added, to spawn with. */
  readonly env: Readonly<Record<string, string>>;
}

/** A live session as its provider drives it. Optional methods are what it can do. */
export interface LiveSession<P = ProviderParams> {
  /** The agent's own session id (ACP `sessionId`, Codex thread id, ...). */
  readonly providerSessionId: string;
  /** Native reload: makes the live agent take freshly projected params now; false when it cannot. */
  reload?(params: P): Promise<boolean>;
  /** Arranges a reconnect of the agent's MCP servers before its next turn; false when it cannot. */
  reconnectBeforeNextTurn?(): Promise<boolean>;
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

/** One kind of agent; `P` is its params type (by default the one `ProviderParamsMap` names). */
export interface AgentProvider<N extends string = string, S = unknown, P = ParamsOf<N>> {
  /** Unique name, e.g. `opencode`; what callers pass as `provider`. */
  readonly name: N;
  /** What no method can say. */
  readonly flags: Readonly<ProviderFlags>;
  /** How to start the agent when the request does not say. */
  readonly launch?: LaunchOptions;
  /** The permission modes it honours and its agent's tool naming forms. */
  readonly permissions?: ProviderPermissions;
  /**
   * Present for kinds that talk to the agent before its session is prepared (ACP
   * `initialize`): the host spawns the agent first and calls this on it.
   */
  handshake?(agent: AgentProcess, setup: SessionSetup): Promise<Handshake<S>>;
  /**
   * Writes what the agent needs before it starts, for kinds with a handshake (a home it is
   * pointed at, settings the session turned on); holds no connector context yet, which
   * `materialize` adds once the handshake said the session is bound.
   */
  prelaunch?(setup: SessionSetup): Promise<Materialized | undefined>;
  /** What an agent's declaration means for the connector context (with `handshake`). */
  probeOf?(declared: Readonly<Record<string, unknown>>): AgentProbe;
  /** The MCP server bindings `params` carry, read back for the host's binding check. */
  bindingsIn(params: P): readonly MCPServerBinding[];
  /** Writes what the agent reads at start from the final params (a config home, a plugin folder). */
  materialize?(
    params: P,
    runtime: PreparedRuntime,
    setup: SessionSetup,
  ): Promise<Materialized | undefined>;
  /** Opens a new session. */
  newSession(request: OpenRequest<P, S>): Promise<LiveSession<P>>;
  /** Loads an earlier session by the agent's own id (history replayed). */
  loadSession?(request: OpenRequest<P, S>): Promise<LiveSession<P>>;
  /** Resumes an earlier session by the agent's own id. */
  resumeSession?(request: OpenRequest<P, S>): Promise<LiveSession<P>>;
}

/**
 * Typed identity helper for a provider.
 * @example host.registerProvider(defineAgentProvider({ name: 'x', flags, bindingsIn, newSession }));
 */
export function defineAgentProvider<N extends string, S, P = ParamsOf<N>>(
  provider: AgentProvider<N, S, P>,
): AgentProvider<N, S, P> {
  return provider;
}
