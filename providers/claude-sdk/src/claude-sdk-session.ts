/**
 * A live Claude Code session through the Agent SDK: one `query()` over a prompt stream
 * that yields only when a turn is sent. Claude Code is started through the session host's
 * spawn (`spawnClaudeCodeProcess`), so its process group is the host's to watch and stop.
 * Refresh is native: Claude Code honours `notifications/tools/list_changed`, and
 * `reconnectMcpServer` / `setMcpServers` reload on demand.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  McpServerConfig,
  McpServerStatus,
  Options,
  Query,
  query as SdkQuery,
  SpawnedProcess,
  SpawnOptions,
} from '@anthropic-ai/claude-agent-sdk';
import {
  type AgentProcess,
  type PromptBlock,
  type StopReason,
  TuttiError,
  type TurnSink,
  watchAgentOutput,
} from '@tutti/core';
import { ClaudeTurns } from './claude-turns.js';
import { createPromptStream, type PromptStream } from './prompt-stream.js';

const PROVIDER = 'claude-sdk';
/** How long Claude Code may take to exit by itself once its query is closed. */
const EXIT_GRACE_MS = 4_000;

/** Options of {@link ClaudeSdkSession.start}. */
export interface ClaudeSdkSessionOptions {
  /** The final `query()` options (projected, through every hook tap). */
  readonly options: Options;
  /** Starts Claude Code (the session host's spawn). */
  readonly spawn: (spec: SpawnOptions) => AgentProcess;
  /** The SDK's `query` (replaceable for wrappers). */
  readonly queryFn?: typeof SdkQuery;
}

/** One Claude Agent SDK session. */
export class ClaudeSdkSession {
  private closed = false;
  private readonly turns: ClaudeTurns;

  private constructor(
    /** The SDK query (an async generator of the session's messages). */
    readonly query: Query,
    /** Claude's session id (new or resumed). */
    readonly sessionId: string,
    private readonly prompt: PromptStream,
    private readonly agent: () => AgentProcess | undefined,
    private readonly userServers: Record<string, McpServerConfig>,
    turns: (session: ClaudeSdkSession) => ClaudeTurns,
  ) {
    this.turns = turns(this);
  }

  /**
   * Starts `query()` with `options` and waits for its initialize answer.
   * @example const session = await ClaudeSdkSession.start({ options, spawn: (spec) => setup.spawn(spec) });
   */
  static async start(input: ClaudeSdkSessionOptions): Promise<ClaudeSdkSession> {
    const sessionId = input.options.resume ?? input.options.sessionId;
    if (!sessionId) throw new TypeError('the options name no sessionId and no resume');
    const prompt = createPromptStream();
    let agent: AgentProcess | undefined;
    let turns: ClaudeTurns | undefined;
    let started: Query | undefined;
    try {
      const options: Options = {
        ...input.options,
        // Partial messages carry the text deltas the turn streams.
        includePartialMessages: true,
        canUseTool: async (name, toolInput, context) =>
          (await turns?.permission(name, context?.toolUseID)) === 'allow'
            ? { behavior: 'allow', updatedInput: toolInput }
            : { behavior: 'deny', message: 'The user did not allow this tool.' },
        // Without a turn to relay it to (or before the turns exist) the question is cancelled.
        onElicitation: async (request, { signal }) =>
          turns ? await turns.elicit(request, signal) : { action: 'cancel' },
        spawnClaudeCodeProcess: (spec) => {
          agent = input.spawn(spec);
          watchAgentOutput(agent);
          return agent.child as unknown as SpawnedProcess;
        },
      };
      // The SDK is loaded by the first Claude session, not with the plugin: it is one of
      // the largest imports (about 0.3 s of CPU) and most daemon starts never need it.
      const query = input.queryFn ?? (await import('@anthropic-ai/claude-agent-sdk')).query;
      started = query({ prompt: prompt.iterable, options });
      await started.initializationResult();
    } catch (error) {
      prompt.end();
      started?.close();
      if (error instanceof TuttiError) throw error;
      throw new TuttiError(
        'TUTTI_ERR_PROVIDER_REQUEST_FAILED',
        { provider: PROVIDER, method: 'initialize', reason: (error as Error).message },
        { cause: error },
      );
    }
    const userServers = Object.fromEntries(
      Object.entries(input.options.mcpServers ?? {}).filter(([name]) => name !== 'connector'),
    );
    const query_ = started;
    return new ClaudeSdkSession(
      started,
      sessionId,
      prompt,
      () => agent,
      userServers,
      () => {
        turns = new ClaudeTurns(query_, (content) => prompt.send(content));
        return turns;
      },
    );
  }

  /** Runs one turn (streaming input, the message stream, `canUseTool`, `interrupt()`). */
  turn(prompt: readonly PromptBlock[], sink: TurnSink): Promise<StopReason> {
    this.assertOpen('turn');
    return this.turns.turn(prompt, sink);
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
   * Takes freshly projected MCP servers (e.g. a re-issued token) with `setMcpServers`,
   * keeping the caller's own servers.
   */
  async setMcpServers(servers: Record<string, McpServerConfig>): Promise<void> {
    this.assertOpen('setMcpServers');
    await this.query.setMcpServers({ ...this.userServers, ...servers });
  }

  /** Process id (and group id) of Claude Code. */
  get pid(): number | undefined {
    return this.agent()?.pid || undefined;
  }

  /**
   * Ends the prompt and closes the query, then waits (bounded) for Claude Code to exit by
   * itself; the host stops what is left of its group. Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.prompt.end();
    this.query.close();
    const agent = this.agent();
    if (agent) await Promise.race([agent.exited, sleep(EXIT_GRACE_MS, undefined, { ref: false })]);
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
