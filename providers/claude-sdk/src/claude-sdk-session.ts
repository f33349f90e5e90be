/**
 * A live Claude Code session through the Agent SDK: one `query()` over a prompt stream
 * that yields only when a turn is sent. Refresh is native: Claude Code honours
 * `notifications/tools/list_changed`, and `reconnectMcpServer` / `setMcpServers` reload on
 * demand (a re-issued token goes in through `rebind`).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type McpServerStatus,
  type Options,
  type Query,
  query,
  type SDKMessage,
} from '@anthropic-ai/claude-agent-sdk';
import {
  type MCPServerBinding,
  type PreparedRuntime,
  type ProcessSupervisor,
  TuttiError,
} from '@tutti/core';
import { type ClaudeProcessTracker, createClaudeProcessTracker } from './claude-process.js';
import type { EngineLogger } from './logger.js';
import { createPromptStream, type PromptStream } from './prompt-stream.js';
import { buildQueryOptions, mergeMcpServers } from './query-options.js';
import { createSkillPlugin, type SkillPlugin } from './skill-plugin.js';

const PROVIDER = 'claude-sdk';

/** Options of {@link ClaudeSdkSession.start}. */
export interface ClaudeSdkSessionOptions {
  readonly prepared: PreparedRuntime;
  /** The caller's own query options (their MCP servers are kept). */
  readonly userOptions?: Options;
  /** Claude session id to resume; a new session gets a fresh UUID otherwise. */
  readonly resume?: string;
  /** Parent folder of the session's skill plugin (default: OS temp folder). */
  readonly baseDir?: string;
  readonly logger?: EngineLogger;
  /** Transforms the projected options before `query()` (e.g. the `sessionNew` hook). */
  readonly transformOptions?: (options: Options) => Promise<Options>;
  /** The SDK's `query` (replaceable for wrappers). */
  readonly queryFn?: typeof query;
  /** The daemon's supervisor (`ProviderSessionContext.processes`), when there is one. */
  readonly processes?: ProcessSupervisor | undefined;
}

/** One Claude Agent SDK session. */
export class ClaudeSdkSession {
  private closed = false;

  private constructor(
    /** The SDK query (an async generator of the session's messages). */
    readonly query: Query,
    /** Claude's session id (new or resumed). */
    readonly sessionId: string,
    private readonly prompt: PromptStream,
    private readonly process: ClaudeProcessTracker,
    private readonly skillPlugin: SkillPlugin | undefined,
    private readonly userOptions: Options | undefined,
    private readonly logger: EngineLogger | undefined,
  ) {}

  /**
   * Starts `query()` with the projected options and waits for its initialize answer.
   * @example const session = await ClaudeSdkSession.start({ prepared, userOptions: { settingSources: [] } });
   */
  static async start(options: ClaudeSdkSessionOptions): Promise<ClaudeSdkSession> {
    const { prepared, logger } = options;
    const skillPlugin =
      prepared.skillRoots.length > 0
        ? await createSkillPlugin(prepared.skillRoots, { baseDir: options.baseDir, logger })
        : undefined;
    const sessionId = options.resume ?? randomUUID();
    const prompt = createPromptStream();
    const tracker = createClaudeProcessTracker({
      stderr: options.userOptions?.stderr,
      processes: options.processes,
    });
    let started: Query | undefined;
    try {
      const projected = buildQueryOptions(prepared, {
        userOptions: options.userOptions,
        resume: options.resume,
        sessionId,
        skillPluginDir: skillPlugin?.dir,
        logger,
      });
      const queryOptions = options.transformOptions
        ? await options.transformOptions(projected)
        : projected;
      queryOptions.spawnClaudeCodeProcess ??= (spawnOptions) => tracker.spawn(spawnOptions);
      started = (options.queryFn ?? query)({ prompt: prompt.iterable, options: queryOptions });
      await started.initializationResult();
    } catch (error) {
      prompt.end();
      started?.close();
      await tracker.stop();
      await skillPlugin?.dispose();
      if (error instanceof TuttiError) throw error;
      throw new TuttiError(
        'TUTTI_ERR_PROVIDER_REQUEST_FAILED',
        { provider: PROVIDER, method: 'initialize', reason: (error as Error).message },
        { cause: error },
      );
    }
    return new ClaudeSdkSession(
      started,
      sessionId,
      prompt,
      tracker,
      skillPlugin,
      options.userOptions,
      logger,
    );
  }

  /** Skill names the session's skill plugin offers (`tutti-connector:<name>` in Claude). */
  get skills(): readonly string[] {
    return this.skillPlugin?.skills ?? [];
  }

  /** Sends one user turn; read the answer from {@link query}. */
  send(text: string): void {
    this.assertOpen('send');
    this.prompt.send(text);
  }

  /** The session's messages (the query's async generator). */
  messages(): AsyncGenerator<SDKMessage, void> {
    return this.query;
  }

  /** Status and tools of every MCP server of the session. */
  async mcpServerStatus(): Promise<McpServerStatus[]> {
    this.assertOpen('mcpServerStatus');
    return this.query.mcpServerStatus();
  }

  /**
   * Resolves the status of `name` once it is no longer `pending` (servers connect in the
   * background after initialize); rejects after `timeoutMs`.
   */
  async waitForMcpServer(name: string, timeoutMs = 30_000): Promise<McpServerStatus> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = (await this.mcpServerStatus()).find((server) => server.name === name);
      if (status && status.status !== 'pending') return status;
      if (Date.now() > deadline) {
        throw new TuttiError('TUTTI_ERR_PROVIDER_REQUEST_FAILED', {
          provider: PROVIDER,
          method: 'mcpServerStatus',
          reason: `server "${name}" still ${status?.status ?? 'missing'} after ${timeoutMs} ms`,
        });
      }
      await sleep(25);
    }
  }

  /** Native reload of one server (re-initialize and re-list). */
  async reconnectMcpServer(name: string): Promise<void> {
    this.assertOpen('reconnectMcpServer');
    await this.query.reconnectMcpServer(name);
  }

  /**
   * Takes new bindings (e.g. a re-issued token) with `setMcpServers`, keeping the caller's
   * own servers.
   */
  async rebind(bindings: readonly MCPServerBinding[]): Promise<void> {
    this.assertOpen('setMcpServers');
    await this.query.setMcpServers(
      mergeMcpServers(this.userOptions?.mcpServers, bindings, this.logger),
    );
  }

  /** Process id (and group id) of Claude Code, when this engine spawned it. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /**
   * Ends the prompt, closes the query, waits for the Claude Code process group to be gone
   * and removes the plugin folder. Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.prompt.end();
    this.query.close();
    await this.process.stop();
    await this.skillPlugin?.dispose();
  }

  private assertOpen(method: string): void {
    if (this.closed) {
      throw new TuttiError('TUTTI_ERR_PROVIDER_SESSION_CLOSED', {
        session: this.sessionId,
        provider: PROVIDER,
        method,
      });
    }
  }
}
