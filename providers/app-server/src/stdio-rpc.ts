/**
 * JSON-RPC over an agent's stdio (newline-delimited, `json-rpc-2.0`). The agent runs in
 * its own process group (core's `spawnDetached`, registered with the daemon's reaper when
 * a supervisor is given); closing ends stdin, then stops the whole group (an npm wrapper
 * may not forward SIGTERM to the native child) and resolves once all of it is gone.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { type DetachedChild, type ProcessSupervisor, spawnDetached, TuttiError } from '@tutti/core';
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

/** Options of {@link StdioRpc.spawn}. */
export interface StdioRpcOptions {
  /** Provider id for errors and logs. */
  readonly provider: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Per-request timeout (default 60 s). */
  readonly requestTimeoutMs?: number;
  /** The daemon's supervisor, so the agent's group dies with the daemon. */
  readonly processes?: ProcessSupervisor | undefined;
}

const STDERR_TAIL = 8 * 1024;
const TERM_GRACE_MS = 3000;

/** A spawned agent and the JSON-RPC peer on its stdio. */
export class StdioRpc {
  private readonly peer: JSONRPCServerAndClient;
  private readonly notificationListeners = new Set<(n: AgentNotification) => void>();
  private readonly exitListeners = new Set<(reason: string) => void>();
  private exitReason: string | undefined;
  private stderrTail = '';

  private readonly child: ChildProcess;

  private constructor(
    private readonly group: DetachedChild,
    private readonly options: StdioRpcOptions,
  ) {
    const { child } = group;
    this.child = child;
    this.peer = new JSONRPCServerAndClient(
      new JSONRPCServer(),
      new JSONRPCClient((payload) => this.write(payload)),
    );
    createInterface({ input: child.stdout! }).on('line', (line) => this.receive(line));
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    child.once('exit', (code, signal) => {
      this.exitReason = signal ? `signal ${signal}` : `exit code ${code}`;
      this.peer.rejectAllPendingRequests(`agent exited (${this.exitReason})`);
      for (const listener of this.exitListeners) listener(this.exitReason);
    });
  }

  /** Spawns the agent in its own process group; rejects when it cannot be started. */
  static async spawn(options: StdioRpcOptions): Promise<StdioRpc> {
    const group = spawnDetached({
      command: options.command,
      args: options.args,
      cwd: options.cwd,
      env: options.env,
      graceMs: TERM_GRACE_MS,
      processes: options.processes,
    });
    try {
      await once(group.child, 'spawn');
    } catch (error) {
      throw new TuttiError(
        'TUTTI_ERR_PROVIDER_SPAWN_FAILED',
        { command: options.command, provider: options.provider, reason: (error as Error).message },
        { cause: error },
      );
    }
    return new StdioRpc(group, options);
  }

  /** Process id (and process group id) of the agent. */
  get pid(): number {
    return this.child.pid!;
  }

  /** Last bytes the agent wrote to stderr (for diagnostics; may hold agent log lines). */
  get stderr(): string {
    return this.stderrTail;
  }

  /** True once the agent process has exited. */
  get hasExited(): boolean {
    return this.exitReason !== undefined;
  }

  /** Sends a request; rejects with a TuttiError on an error answer, timeout or exit. */
  async request<T>(method: string, params: unknown): Promise<T> {
    if (this.exitReason !== undefined) throw this.exitedError(method);
    const timeout = this.options.requestTimeoutMs ?? 60_000;
    try {
      return (await this.peer.timeout(timeout).request(method, params as object)) as T;
    } catch (error) {
      if (this.exitReason !== undefined) throw this.exitedError(method, error);
      const reason =
        error instanceof JSONRPCErrorException
          ? `${error.message} (code ${error.code})`
          : (error as Error).message;
      throw new TuttiError(
        'TUTTI_ERR_PROVIDER_REQUEST_FAILED',
        { provider: this.options.provider, method, reason },
        { cause: error },
      );
    }
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    if (this.exitReason === undefined) this.peer.notify(method, params as object);
  }

  /** Subscribes to the agent's notifications; returns the unsubscribe function. */
  onNotification(listener: (notification: AgentNotification) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  /** Subscribes to the agent's exit. */
  onExit(listener: (reason: string) => void): void {
    this.exitListeners.add(listener);
  }

  /**
   * Ends stdin, SIGTERMs the process group, SIGKILLs it after a grace period; resolves once
   * no process of the group is left. Idempotent.
   */
  async close(): Promise<void> {
    if (this.exitReason === undefined) this.child.stdin!.end();
    await this.group.terminate();
  }

  private write(payload: unknown): void {
    if (this.exitReason !== undefined || !this.child.stdin!.writable) return;
    this.child.stdin!.write(`${JSON.stringify(payload)}\n`);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // Not a JSON-RPC line (an agent may print plain text before it is ready).
    }
    if (typeof message.method === 'string' && message.id === undefined) {
      for (const listener of this.notificationListeners) {
        listener({ method: message.method, params: message.params });
      }
      return;
    }
    // App-server messages carry no `jsonrpc` field; json-rpc-2.0 wants one.
    void this.peer.receiveAndSend({ jsonrpc: '2.0', ...message }, undefined, undefined);
  }

  private exitedError(method: string, cause?: unknown): TuttiError {
    return new TuttiError(
      'TUTTI_ERR_PROVIDER_AGENT_EXITED',
      { provider: this.options.provider, reason: this.exitReason ?? 'unknown', method },
      { cause },
    );
  }
}
