/**
 * The app-server engine: one agent process (Codex, Tutti Agent) per session, driven over
 * JSON-RPC on stdio, configured through the session-isolated home its provider wrote.
 * Refresh: `config/mcpServer/reload` is sent, and because it was measured not to reach a
 * thread that is already loaded, the engine also restarts the agent and resumes its
 * threads before the next turn (see `reconnect`).
 */
import { type AgentProcess, type PreparedRuntime, TuttiError } from '@tutti/core';
import type { AppServerDescriptor } from './descriptor.js';
import type { EngineLogger, SessionHome } from './session-home.js';
import { type AgentNotification, StdioRpc } from './stdio-rpc.js';

/** One MCP server as `mcpServerStatus/list` reports it (fields this engine relies on). */
export interface AppServerMcpStatus {
  name: string;
  tools: Record<string, { name: string; description?: string; inputSchema?: unknown }>;
  authStatus?: string;
  runtimeStatus?: string | null;
  toolsError?: string | null;
  [key: string]: unknown;
}

/** One input item of `turn/start`. */
export type TurnInputItem =
  | { type: 'text'; text: string; text_elements: unknown[] }
  | { type: 'image'; url: string };

/** Result of `mcpServer/tool/call` (an MCP `CallToolResult`). */
export interface AppServerToolResult {
  content: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: unknown;
}

/** Options of {@link AppServerEngine.start}. */
export interface AppServerEngineOptions {
  readonly descriptor: AppServerDescriptor;
  readonly prepared: PreparedRuntime;
  /** The written session home the agent runs on. */
  readonly home: SessionHome;
  /**
   * Starts the agent process with `<homeEnvVar>` pointing at the home (the session host's
   * spawn); called again on every reconnect.
   */
  readonly spawn: () => AgentProcess;
  readonly logger?: EngineLogger;
  /** Per-request timeout (default 60 s). */
  readonly requestTimeoutMs?: number;
  /**
   * Params every `thread/start` and `thread/resume` carries, reconnects included (e.g. the
   * approval policy of a daemon-driven session).
   */
  readonly threadParams?: Readonly<Record<string, unknown>>;
  /** `clientInfo` sent in `initialize`. */
  readonly clientInfo?: { name: string; title: string | null; version: string };
}

interface ThreadState {
  /** Current id of the thread (a reconnect of a turn-less thread starts a new one). */
  id: string;
  /** Whether a turn was started, so the agent persisted it and `thread/resume` works. */
  persisted: boolean;
}

/** A live app-server session: the agent process, its home and its threads. */
export class AppServerEngine {
  private rpc: StdioRpc;
  private readonly threads = new Map<string, ThreadState>();
  private readonly notificationListeners = new Set<(n: AgentNotification) => void>();
  private readonly requestHandlers = new Map<string, (params: unknown) => Promise<unknown>>();
  private readonly faultListeners = new Set<(error: TuttiError) => void>();
  private reconnectPending = false;
  private restarting = false;
  private closed = false;

  private constructor(
    private readonly options: AppServerEngineOptions,
    /** The session-isolated config home. */
    readonly home: SessionHome,
    rpc: StdioRpc,
  ) {
    this.rpc = rpc;
    this.wire(rpc);
  }

  /**
   * Spawns the agent on the session home, runs `initialize` / `initialized` and hands the
   * skill roots to the agent.
   * @example const engine = await AppServerEngine.start({ descriptor, prepared, home, spawn });
   */
  static async start(options: AppServerEngineOptions): Promise<AppServerEngine> {
    const rpc = await launch(options);
    return new AppServerEngine(options, options.home, rpc);
  }

  /** Process id (and group id) of the agent. */
  get pid(): number {
    return this.rpc.pid;
  }

  /** Starts a thread in the prepared cwd; resolves its id. */
  async startThread(params: Record<string, unknown> = {}): Promise<string> {
    const result = await this.request<{ thread: { id: string } }>('thread/start', {
      cwd: this.options.prepared.cwd,
      ...this.options.threadParams,
      ...params,
    });
    this.threads.set(result.thread.id, { id: result.thread.id, persisted: false });
    return result.thread.id;
  }

  /** Resumes a persisted thread by id (it must have had a turn); resolves its id. */
  async resumeThread(threadId: string, params: Record<string, unknown> = {}): Promise<string> {
    const result = await this.request<{ thread: { id: string } }>('thread/resume', {
      threadId,
      cwd: this.options.prepared.cwd,
      excludeTurns: true,
      ...this.options.threadParams,
      ...params,
    });
    this.threads.set(threadId, { id: result.thread.id, persisted: true });
    return result.thread.id;
  }

  /** The current id of a thread this engine started (changes only on a reconnect). */
  threadId(original: string): string {
    return this.threads.get(original)?.id ?? original;
  }

  /**
   * `mcpServerStatus/list`, all pages. Without a thread it opens fresh connections; with a
   * thread and a server name it reports that thread's own connection and tool catalog.
   */
  async mcpServerStatus(
    scope: { threadId?: string; serverName?: string } = {},
  ): Promise<AppServerMcpStatus[]> {
    const data: AppServerMcpStatus[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: AppServerMcpStatus[]; nextCursor: string | null } = await this.request(
        'mcpServerStatus/list',
        {
          cursor,
          threadId: scope.threadId ? this.threadId(scope.threadId) : undefined,
          serverName: scope.serverName,
        },
      );
      data.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return data;
  }

  /** Calls one MCP tool through the thread's MCP client (`mcpServer/tool/call`), no model. */
  async callTool(
    threadId: string,
    server: string,
    tool: string,
    args: Record<string, unknown> = {},
  ): Promise<AppServerToolResult> {
    return this.request('mcpServer/tool/call', {
      threadId: this.threadId(threadId),
      server,
      tool,
      arguments: args,
    });
  }

  /**
   * Native reload (`config/mcpServer/reload`), and a reconnect before the next turn: the
   * reload alone left loaded threads on their old tool catalog in every measurement.
   */
  async reload(): Promise<void> {
    await this.request('config/mcpServer/reload', {});
    this.reconnectPending = true;
  }

  /** Arranges a reconnect before the next {@link startTurn}. */
  reconnectBeforeNextTurn(): void {
    this.reconnectPending = true;
  }

  /**
   * Restarts the agent on the same home and brings every thread back: persisted threads by
   * `thread/resume`, turn-less ones (nothing to lose) by a new `thread/start`. Resolves the
   * map from original to current thread ids.
   */
  async reconnect(): Promise<ReadonlyMap<string, string>> {
    this.assertOpen('reconnect');
    this.restarting = true;
    try {
      await this.rpc.close();
      this.rpc = await launch(this.options);
      this.wire(this.rpc);
    } finally {
      this.restarting = false;
    }
    this.reconnectPending = false;
    const ids = new Map<string, string>();
    for (const [original, state] of this.threads) {
      if (state.persisted) {
        await this.request('thread/resume', {
          threadId: state.id,
          cwd: this.options.prepared.cwd,
          excludeTurns: true,
          ...this.options.threadParams,
        });
      } else {
        const result = await this.request<{ thread: { id: string } }>('thread/start', {
          cwd: this.options.prepared.cwd,
          ...this.options.threadParams,
        });
        state.id = result.thread.id;
      }
      ids.set(original, state.id);
    }
    return ids;
  }

  /**
   * Starts a turn with text input (`turn/start`); reconnects first when a refresh is
   * pending. Resolves the turn id; follow progress with {@link onNotification}.
   */
  async startTurn(threadId: string, input: string | readonly TurnInputItem[]): Promise<string> {
    if (this.reconnectPending) await this.reconnect();
    const state = this.threads.get(threadId);
    const items =
      typeof input === 'string' ? [{ type: 'text', text: input, text_elements: [] }] : input;
    const result = await this.request<{ turn: { id: string } }>('turn/start', {
      threadId: this.threadId(threadId),
      input: items,
    });
    if (state) state.persisted = true;
    return result.turn.id;
  }

  /** Sends any app-server request (escape hatch for methods this engine does not wrap). */
  async request<T>(method: string, params: unknown): Promise<T> {
    this.assertOpen(method);
    return this.rpc.request<T>(method, params);
  }

  /** Answers the agent's `method` requests (approvals) with `handler`, across reconnects. */
  handle(method: string, handler: (params: unknown) => Promise<unknown>): void {
    this.requestHandlers.set(method, handler);
    this.rpc.handle(method, handler);
  }

  /** Interrupts a running turn (`turn/interrupt`). */
  async interruptTurn(threadId: string, turnId: string): Promise<void> {
    await this.request('turn/interrupt', { threadId: this.threadId(threadId), turnId });
  }

  /**
   * Subscribes to the agent failing (exit, fault) while this engine is open, other than by
   * its own close or reconnect; returns the unsubscribe function.
   */
  onFault(listener: (error: TuttiError) => void): () => void {
    this.faultListeners.add(listener);
    return () => this.faultListeners.delete(listener);
  }

  /** Subscribes to the agent's notifications (across reconnects). */
  onNotification(listener: (notification: AgentNotification) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  /** Stops the agent's process group and writes back a rotated login. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.rpc.close();
    } finally {
      await this.home.dispose();
    }
  }

  private wire(rpc: StdioRpc): void {
    rpc.onNotification((notification) => {
      for (const listener of this.notificationListeners) listener(notification);
    });
    for (const [method, handler] of this.requestHandlers) rpc.handle(method, handler);
    void rpc.faulted.then((error) => {
      if (this.rpc !== rpc || this.closed || this.restarting) return;
      for (const listener of this.faultListeners) listener(error);
    });
  }

  private assertOpen(method: string): void {
    if (this.closed) {
      throw new TuttiError('TUTTI_ERR_PROVIDER_SESSION_CLOSED', {
        session: this.home.dir,
        provider: this.options.descriptor.id,
        method,
      });
    }
  }
}

/** Spawns the agent on its home, initializes it and sets its extra skill roots. */
async function launch(options: AppServerEngineOptions): Promise<StdioRpc> {
  const { descriptor, prepared } = options;
  const agent = options.spawn();
  await agent.started;
  const rpc = StdioRpc.open(agent, {
    provider: descriptor.id,
    ...(options.requestTimeoutMs === undefined
      ? {}
      : { requestTimeoutMs: options.requestTimeoutMs }),
  });
  try {
    await rpc.request('initialize', {
      clientInfo: options.clientInfo ?? { name: 'tutti', title: 'Tutti', version: '0.1.0' },
      capabilities: { experimentalApi: false, requestAttestation: false },
    });
    rpc.notify('initialized', {});
    if (prepared.skillRoots.length > 0) {
      await rpc.request('skills/extraRoots/set', { extraRoots: [...prepared.skillRoots] });
    }
    return rpc;
  } catch (error) {
    await rpc.close();
    throw error;
  }
}
