/**
 * A live ACP session. Its native reload re-sends freshly projected params (a new token)
 * through `session/resume`, or `session/load`, whichever the agent declared, unless its
 * descriptor says it cannot take one live: a changed binding makes opencode reconnect in
 * the same process, an identical one does not. The descriptor's session mode is set again
 * after a reload that left another one.
 */
import {
  type LiveSession,
  type PromptBlock,
  type Reopening,
  type Reproject,
  SESSION_OPERATIONS,
  type StopReason,
  type TurnSink,
} from '@tutti/core';
import type { AcpConnection } from './acp-connection.js';
import { acpTurns } from './acp-turn.js';
import type { ToolIdentityField } from './descriptors.js';
import type { AcpSessionParams } from './project-params.js';

/** Timeout of `session/close`; the host stops the process group after it anyway. */
const CLOSE_TIMEOUT_MS = 2_000;

/** Where the engine says what went wrong outside a request (never a secret). */
export interface AcpEngineLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** What an ACP session is built from. */
export interface AcpSessionState {
  readonly provider: string;
  /** The host's id of the session (for the log). */
  readonly agentSessionId: string;
  readonly connection: AcpConnection;
  readonly providerSessionId: string;
  /** What the agent declared in `initialize` (its `agentCapabilities`). */
  readonly declared: Readonly<Record<string, unknown>> | undefined;
  readonly requestTimeoutMs: number;
  /** False when the descriptor says the agent cannot take a new binding live. */
  readonly liveReload: boolean;
  /** The session mode set again after a reload (see the descriptor's `sessionMode`). */
  readonly sessionMode?: string;
  /** Where the agent names a call's tool (see the descriptor's `permissions.identity`). */
  readonly identity?: readonly ToolIdentityField[];
  /** Its tools that run another tool named only in the permission request. */
  readonly bridges?: readonly string[];
  readonly logger?: AcpEngineLogger | undefined;
  /** Runs once the session is closed at protocol level (before its processes are stopped). */
  readonly onClose?: () => Promise<void>;
}

/** The earlier sessions the agent declared it opens again: `resume` first, then `load`. */
export function declaredReopens(
  declared: Readonly<Record<string, unknown>> | undefined,
): Reopening[] {
  const sessionCapabilities = declared?.sessionCapabilities as Record<string, unknown> | undefined;
  return [
    ...(sessionCapabilities?.resume ? (['resume'] as const) : []),
    ...(declared?.loadSession ? (['load'] as const) : []),
  ];
}

/** Which session request re-sends a binding to this agent live, if any. */
export function reloadOperation(
  declared: Readonly<Record<string, unknown>> | undefined,
  liveReload: boolean,
): Reopening | undefined {
  return liveReload ? declaredReopens(declared)[0] : undefined;
}

/** One ACP agent process holding one session. */
export class AcpSession implements LiveSession<AcpSessionParams> {
  readonly #state: AcpSessionState;
  readonly #turn: (prompt: readonly PromptBlock[], sink: TurnSink) => Promise<StopReason>;

  constructor(state: AcpSessionState) {
    this.#state = state;
    this.#turn = acpTurns(state.connection, state.providerSessionId, state.identity, state.bridges);
  }

  /** Runs one turn (`session/prompt`). */
  turn(prompt: readonly PromptBlock[], sink: TurnSink): Promise<StopReason> {
    return this.#turn(prompt, sink);
  }

  get providerSessionId(): string {
    return this.#state.providerSessionId;
  }

  /** Sends any further ACP request (e.g. `session/prompt`) on this session's connection. */
  request<T>(method: string, params: unknown, timeoutMs?: number): Promise<T> {
    return this.#state.connection.request<T>(
      method,
      params,
      timeoutMs ?? this.#state.requestTimeoutMs,
    );
  }

  async reload(reproject: Reproject<AcpSessionParams>): Promise<boolean> {
    const state = this.#state;
    const operation = reloadOperation(state.declared, state.liveReload);
    if (!operation) return false;
    const { params } = await reproject(operation);
    const { wire } = SESSION_OPERATIONS[operation];
    try {
      const result = await this.request<{ modes?: { currentModeId?: unknown } } | null>(
        wire,
        params,
      );
      const mode = state.sessionMode;
      if (mode && result?.modes?.currentModeId !== mode) {
        await this.request('session/set_mode', { sessionId: this.providerSessionId, modeId: mode });
      }
      return true;
    } catch (error) {
      // codex-acp cannot resume, nor Gemini CLI load, a session that has had no turn yet:
      // the next strategy (a resume or restart by whoever drives the agent) takes over.
      state.logger?.warn(
        { provider: state.provider, session: state.agentSessionId, operation },
        `the agent could not take the new tool list through ${wire}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return false;
    }
  }

  async close(): Promise<void> {
    const sessionCapabilities = this.#state.declared?.sessionCapabilities as
      | Record<string, unknown>
      | undefined;
    if (sessionCapabilities?.close) {
      await this.#state.connection
        .request('session/close', { sessionId: this.providerSessionId }, CLOSE_TIMEOUT_MS)
        .catch(() => {});
    }
    this.#state.connection.close();
    await this.#state.onClose?.().catch(() => {});
  }
}
