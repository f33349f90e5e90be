/**
 * Turns of a Claude SDK session, normalized: one pump reads the query's messages for the
 * whole session and hands them to the running turn: text deltas (partial messages), tool
 * uses and their results as tool calls, the result message as the turn's end. Claude
 * Code's `canUseTool` goes to the turn's permission answer and its `onElicitation` (an MCP
 * server asking the person) to the turn's elicitation answer; a cancel is `interrupt()`;
 * the message stream ending under a turn (Claude Code died) fails it.
 */
import type {
  ElicitationRequest as ClaudeElicitation,
  ElicitationResult,
  Query,
  SDKMessage,
} from '@anthropic-ai/claude-agent-sdk';
import {
  type ElicitationRequest,
  type PermissionOutcome,
  type PromptBlock,
  type StopReason,
  TuttiError,
  type TurnSink,
} from '@tutti/core';

const PROVIDER = 'claude-sdk';

interface Running {
  readonly sink: TurnSink;
  /** Tool names of the turn's calls, by tool use id. */
  readonly calls: Map<string, string>;
  resolve(reason: StopReason): void;
  reject(error: Error): void;
  cancelled: boolean;
  deltas: boolean;
}

/** Anthropic content blocks of a prompt. */
export function contentOf(prompt: readonly PromptBlock[]): Record<string, unknown>[] {
  return prompt.map((block) =>
    block.type === 'text'
      ? { type: 'text', text: block.text }
      : { type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } },
  );
}

/** Runs the pump over `query`; `send` queues a user message. */
export class ClaudeTurns {
  #running: Running | undefined;
  #ended: Error | undefined;

  constructor(
    private readonly query: Query,
    private readonly send: (content: Record<string, unknown>[]) => void,
  ) {
    void this.#pump();
  }

  /**
   * Claude Code's `canUseTool`: the running turn answers, or nobody (deny). Its tool name
   * is Claude Code's own (`mcp__connector__<tool>`, `Bash`), never the model's text.
   */
  async permission(toolName: string, toolUseId: string | undefined): Promise<PermissionOutcome> {
    if (!this.#running) return 'deny';
    return this.#running.sink.permission({
      ...(toolUseId ? { callId: toolUseId } : {}),
      identity: { name: toolName },
    });
  }

  /**
   * Claude Code's `onElicitation`: the running turn relays the MCP server's question to the
   * host; with no turn running nobody can be asked (`cancel`). `signal` aborts when Claude
   * Code withdraws it. Only the members the daemon relays are passed on (not the
   * `_meta`-drawn `title`, `displayName` and `description`).
   */
  async elicit(request: ClaudeElicitation, signal: AbortSignal): Promise<ElicitationResult> {
    if (!this.#running) return { action: 'cancel' };
    const asked: ElicitationRequest =
      request.mode === 'url'
        ? {
            mode: 'url',
            message: request.message,
            url: request.url as string,
            ...(request.elicitationId !== undefined && { elicitationId: request.elicitationId }),
          }
        : {
            mode: 'form',
            message: request.message,
            requestedSchema: request.requestedSchema as ElicitationRequest['requestedSchema'],
          };
    const answer = await this.#running.sink.elicit({
      server: request.serverName,
      request: asked,
      signal,
    });
    return answer.content
      ? { action: answer.action, content: { ...answer.content } as ElicitationResult['content'] }
      : { action: answer.action };
  }

  /** Runs one turn. */
  turn(prompt: readonly PromptBlock[], sink: TurnSink): Promise<StopReason> {
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise<StopReason>((resolve, reject) => {
      const running: Running = {
        sink,
        calls: new Map(),
        resolve,
        reject,
        cancelled: false,
        deltas: false,
      };
      const onAbort = () => {
        running.cancelled = true;
        void this.query.interrupt().catch(() => {});
      };
      sink.signal.addEventListener('abort', onAbort, { once: true });
      const settle = () => {
        sink.signal.removeEventListener('abort', onAbort);
        if (this.#running === running) this.#running = undefined;
      };
      running.resolve = (reason) => {
        settle();
        resolve(reason);
      };
      running.reject = (error) => {
        settle();
        reject(error);
      };
      this.#running = running;
      this.send(contentOf(prompt));
    });
  }

  async #pump(): Promise<void> {
    try {
      for await (const message of this.query) this.#take(message);
      this.#ended = new TuttiError('TUTTI_ERR_TURN_FAILED', {
        provider: PROVIDER,
        reason: 'Claude Code ended its message stream',
      });
    } catch (error) {
      this.#ended = new TuttiError(
        'TUTTI_ERR_TURN_FAILED',
        { provider: PROVIDER, reason: error instanceof Error ? error.message : String(error) },
        { cause: error },
      );
    }
    this.#running?.reject(this.#ended);
  }

  #take(message: SDKMessage): void {
    const turn = this.#running;
    if (!turn) return;
    const { sink } = turn;
    if (message.type === 'stream_event') {
      const event = message.event as { type?: string; delta?: { type?: string; text?: string } };
      if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') {
        turn.deltas = true;
        if (event.delta.text) sink.emit({ type: 'text', text: event.delta.text });
      }
      return;
    }
    if (message.type === 'assistant') {
      // An error Claude Code reports as an assistant message is the turn's error, not text.
      if ((message as { error?: unknown }).error !== undefined) return;
      for (const block of message.message.content as {
        type: string;
        id?: string;
        name?: string;
        text?: string;
      }[]) {
        if (block.type === 'tool_use' && block.id && block.name) {
          turn.calls.set(block.id, block.name);
          sink.emit({
            type: 'tool_call',
            callId: block.id,
            identity: { name: block.name },
            status: 'in_progress',
          });
        } else if (block.type === 'text' && block.text && !turn.deltas) {
          sink.emit({ type: 'text', text: block.text });
        }
      }
      return;
    }
    if (message.type === 'user') {
      const content = message.message.content;
      if (!Array.isArray(content)) return;
      for (const block of content as { type: string; tool_use_id?: string; is_error?: boolean }[]) {
        if (block.type !== 'tool_result' || !block.tool_use_id) continue;
        const name = turn.calls.get(block.tool_use_id);
        const isError = block.is_error === true;
        sink.emit({
          type: 'tool_call',
          callId: block.tool_use_id,
          identity: name ? { name } : { label: '' },
          status: isError ? 'failed' : 'completed',
        });
        sink.emit({ type: 'tool_result', callId: block.tool_use_id, isError });
      }
      return;
    }
    if (message.type === 'result') {
      const result = message as {
        subtype: string;
        stop_reason?: string | null;
        errors?: string[];
        is_error?: boolean;
        result?: string;
        api_error_status?: number | null;
        terminal_reason?: string;
      };
      if (result.is_error && result.subtype === 'success' && !turn.cancelled) {
        const reason = (result.result ?? result.errors?.join('; ') ?? result.subtype)
          .replace(/\s+/g, ' ')
          .replace(/[.\s]+$/, '');
        turn.reject(
          result.terminal_reason === 'api_error' || typeof result.api_error_status === 'number'
            ? new TuttiError('TUTTI_ERR_TURN_MODEL_FAILED', {
                provider: PROVIDER,
                status: result.api_error_status ? ` (HTTP ${result.api_error_status})` : '',
                reason,
              })
            : new TuttiError('TUTTI_ERR_TURN_FAILED', { provider: PROVIDER, reason }),
        );
        return;
      }
      if (result.subtype === 'success') {
        turn.resolve(
          result.stop_reason === 'max_tokens'
            ? 'max_tokens'
            : result.stop_reason === 'refusal'
              ? 'refusal'
              : 'end_turn',
        );
      } else if (turn.cancelled) turn.resolve('cancelled');
      else if (result.subtype === 'error_max_turns') turn.resolve('max_tokens');
      else {
        turn.reject(
          new TuttiError('TUTTI_ERR_TURN_FAILED', {
            provider: PROVIDER,
            reason: (result.errors ?? [result.subtype]).join('; '),
          }),
        );
      }
    }
  }
}
