/**
 * A live ACP session. Its native reload re-sends freshly projected params (a new token)
 * through `session/resume`, or `session/load`, whichever the agent declared: a changed
 * binding makes opencode reconnect in the same process, an identical one does not.
 */
import type { LiveSession, PromptBlock, StopReason, TurnSink } from '@tutti/core';
import type { AcpConnection } from './acp-connection.js';
import { acpTurns } from './acp-turn.js';
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
    this.#turn = acpTurns(state.connection, state.providerSessionId);
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
    await this.request(`session/${operation}`, params);
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
  }
}
