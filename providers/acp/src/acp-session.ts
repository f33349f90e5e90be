/**
 * A live ACP session. Its native reload re-sends freshly projected params (a new token)
 * through `session/resume`, or `session/load`, whichever the agent declared: a changed
 * binding makes opencode reconnect in the same process, an identical one does not. The
 * descriptor's session mode is set again after a reload that left another one.
 */
import type { LiveSession, PromptBlock, StopReason, TurnSink } from '@tutti/core';
import type { AcpConnection } from './acp-connection.js';
import { acpTurns } from './acp-turn.js';
import type { ToolIdentityField } from './descriptors.js';
import type { AcpSessionParams } from './project-params.js';

/** Timeout of `session/close`; the host stops the process group after it anyway. */
const CLOSE_TIMEOUT_MS = 2_000;

/** What an ACP session is built from. */
export interface AcpSessionState {
  readonly connection: AcpConnection;
  readonly providerSessionId: string;
  /** What the agent declared in `initialize` (its `agentCapabilities`). */
  readonly declared: Readonly<Record<string, unknown>> | undefined;
  readonly requestTimeoutMs: number;
  /** The session mode set again after a reload (see the descriptor's `sessionMode`). */
  readonly sessionMode?: string;
  /** Where the agent names a call's tool (see the descriptor's `permissions.identity`). */
  readonly identity?: readonly ToolIdentityField[];
  /** Its tools that run another tool named only in the permission request. */
  readonly bridges?: readonly string[];
  /** Runs once the session is closed at protocol level (before its processes are stopped). */
  readonly onClose?: () => Promise<void>;
}

/** Which session request re-sends a binding to this agent, if any. */
export function reloadOperation(
  declared: Readonly<Record<string, unknown>> | undefined,
): 'resume' | 'load' | undefined {
  const sessionCapabilities = declared?.sessionCapabilities as Record<string, unknown> | undefined;
  if (sessionCapabilities?.resume) return 'resume';
  if (declared?.loadSession) return 'load';
  return undefined;
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

  async reload(params: AcpSessionParams): Promise<boolean> {
    const operation = reloadOperation(this.#state.declared);
    if (!operation) return false;
    const result = await this.request<{ modes?: { currentModeId?: unknown } } | null>(
      `session/${operation}`,
      params,
    );
    const mode = this.#state.sessionMode;
    if (mode && result?.modes?.currentModeId !== mode) {
      await this.request('session/set_mode', { sessionId: this.providerSessionId, modeId: mode });
    }
    return true;
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
