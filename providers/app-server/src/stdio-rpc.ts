/**
 * JSON-RPC over an app-server agent's stdio (`json-rpc-2.0`), through core's agent channel:
 * lines are bounded, noise and floods are faults, and a request interrupted by a fault
 * fails with the fault's error (what happened, the agent's last stderr lines). The agent
 * process is started and stopped by the session host; closing this ends its stdin and
 * stops its group.
 */
import {
  type AgentChannel,
  type AgentProcess,
  type ChannelLimits,
  openAgentChannel,
  TuttiError,
} from '@tutti/core';
import {
  JSONRPCClient,
  JSONRPCErrorException,
  JSONRPCServer,
  JSONRPCServerAndClient,
} from 'json-rpc-2.0';

/** A notification from the agent. */
export interface AgentNotification {
  method: string;
  params: unknown;
}

/** Options of {@link StdioRpc.open}. */
export interface StdioRpcOptions {
  /** Provider id for errors and logs. */
  readonly provider: string;
  /** Per-request timeout (default 60 s). */
  readonly requestTimeoutMs?: number;
  readonly limits?: Partial<ChannelLimits>;
}

/** The JSON-RPC peer on a spawned agent's stdio. */
export class StdioRpc {
  private readonly peer: JSONRPCServerAndClient;
  private readonly server = new JSONRPCServer();
  private readonly notificationListeners = new Set<(n: AgentNotification) => void>();
  private readonly channel: AgentChannel;

  private constructor(
    readonly agent: AgentProcess,
    private readonly options: StdioRpcOptions,
  ) {
    this.channel = openAgentChannel(agent, options.limits);
    this.peer = new JSONRPCServerAndClient(
      this.server,
      new JSONRPCClient((payload) => this.channel.send(payload)),
    );
    this.channel.onMessage((message) => this.receive(message));
    void this.channel.faulted.then((fault) => {
      this.peer.rejectAllPendingRequests(`the agent ${fault.what}`);
    });
  }

  /** Speaks JSON-RPC on `agent`'s stdio. */
  static open(agent: AgentProcess, options: StdioRpcOptions): StdioRpc {
    return new StdioRpc(agent, options);
  }

  /** Process id (and process group id) of the agent. */
  get pid(): number {
    return this.agent.pid;
  }

  /** True once the agent is gone or was stopped for a fault. */
  get hasExited(): boolean {
    return this.channel.fault !== undefined;
  }

  /** Resolves with the error of the agent's fault (its end included), once there is one. */
  get faulted(): Promise<TuttiError> {
    return this.channel.faulted.then(() => this.channel.errorFor('turn'));
  }

  /** Sends a request; rejects with a TuttiError on an error answer, a timeout or a fault. */
  async request<T>(method: string, params: unknown): Promise<T> {
    if (this.channel.fault) throw this.channel.errorFor(method);
    const timeout = this.options.requestTimeoutMs ?? 60_000;
    try {
      return (await this.peer.timeout(timeout).request(method, params as object)) as T;
    } catch (error) {
      if (this.channel.fault) throw this.channel.errorFor(method);
      const message = oneLine((error as Error).message);
      const reason =
        error instanceof JSONRPCErrorException ? `${message} (code ${error.code})` : message;
      throw new TuttiError(
        'TUTTI_ERR_PROVIDER_REQUEST_FAILED',
        { provider: this.options.provider, method, reason },
        { cause: error },
      );
    }
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    this.peer.notify(method, params as object);
  }

  /** Subscribes to the agent's notifications; returns the unsubscribe function. */
  onNotification(listener: (notification: AgentNotification) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  /** Answers the agent's `method` requests (e.g. approvals) with `handler`. */
  handle(method: string, handler: (params: unknown) => Promise<unknown>): void {
    this.server.addMethod(method, (params) => handler(params));
  }

  /** Ends stdin and stops the agent's whole group; resolves once it is gone. Idempotent. */
  async close(): Promise<void> {
    if (!this.channel.fault) this.agent.stdin.end();
    await this.agent.terminate();
  }

  private receive(message: Record<string, unknown>): void {
    if (typeof message.method === 'string' && message.id === undefined) {
      for (const listener of this.notificationListeners) {
        listener({ method: message.method, params: message.params });
      }
      return;
    }
    // App-server messages carry no `jsonrpc` field; json-rpc-2.0 wants one.
    this.peer.receiveAndSend({ jsonrpc: '2.0', ...message }, undefined, undefined).catch(() => {
      // An answer that cannot be sent: the channel records why (the agent's fault).
    });
  }
}

/** A message as one line without terminal escapes or a final period. */
function oneLine(message: string): string {
  return (
    message
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what it matches
      .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[.\s]+$/, '')
  );
}
