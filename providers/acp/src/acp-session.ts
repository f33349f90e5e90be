/**
 * A live ACP session. Its native reload re-sends a freshly prepared binding through
 * `session/resume` (or `session/load`) when the agent supports either: a changed binding
 * makes opencode reconnect in the same process, an identical one does not.
 */
import type { InitializeResponse } from '@agentclientprotocol/sdk';
import type { PreparedRuntime, ProviderSession, ProviderSessionContext } from '@tutti/core';
import type { AcpConnection } from './acp-connection.js';
import type { AgentProcess } from './agent-process.js';
import { sendSessionRequest } from './send-session-request.js';

/** Timeout of `session/close` before the process group is killed anyway. */
const CLOSE_TIMEOUT_MS = 2_000;

/** State an ACP session is built from. */
export interface AcpSessionState {
  readonly provider: string;
  readonly context: ProviderSessionContext;
  readonly agent: AgentProcess;
  readonly connection: AcpConnection;
  /** `initialize` result; undefined when the probe failed. */
  readonly initialize: InitializeResponse | undefined;
  readonly providerSessionId: string;
  readonly connector: 'bound' | 'plain';
  readonly requestTimeoutMs: number;
}

/** One ACP agent process holding one session. */
export class AcpSession implements ProviderSession {
  readonly #state: AcpSessionState;
  #closing: Promise<void> | undefined;

  constructor(state: AcpSessionState) {
    this.#state = state;
  }

  get providerSessionId(): string {
    return this.#state.providerSessionId;
  }

  get connector(): 'bound' | 'plain' {
    return this.#state.connector;
  }

  get pid(): number {
    return this.#state.agent.child.pid;
  }

  /** Sends any further ACP request (e.g. `session/prompt`) on this session's connection. */
  request<T>(method: string, params: unknown, timeoutMs?: number): Promise<T> {
    return this.#state.connection.request<T>(
      method,
      params,
      timeoutMs ?? this.#state.requestTimeoutMs,
    );
  }

  async reload(rebind: () => Promise<PreparedRuntime>): Promise<boolean> {
    if (this.#state.connector !== 'bound' || this.#closing) return false;
    const capabilities = this.#state.initialize?.agentCapabilities;
    const kind = capabilities?.sessionCapabilities?.resume
      ? 'resume'
      : capabilities?.loadSession
        ? 'load'
        : undefined;
    if (!kind) return false;
    const runtime = await rebind();
    if (runtime.mcpServers.length === 0) return false;
    await sendSessionRequest({
      kind,
      runtime,
      context: this.#state.context,
      connection: this.#state.connection,
      initialize: this.#state.initialize,
      provider: this.#state.provider,
      providerSessionId: this.#state.providerSessionId,
      timeoutMs: this.#state.requestTimeoutMs,
    });
    return true;
  }

  onExit(listener: (reason: string) => void): void {
    void this.#state.agent.exited.then((reason) => {
      if (!this.#closing) listener(reason);
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const { connection, agent, initialize } = this.#state;
    if (initialize?.agentCapabilities?.sessionCapabilities?.close) {
      await connection
        .request('session/close', { sessionId: this.providerSessionId }, CLOSE_TIMEOUT_MS)
        .catch(() => {});
    }
    connection.close();
    await agent.kill();
  }
}
