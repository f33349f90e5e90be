/**
 * The prompt of a long-lived `query()`: an async iterable of user messages that yields
 * nothing until a turn is sent, so opening a session calls no model.
 */
import type { SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';

/** A push-driven prompt stream. */
export interface PromptStream {
  readonly iterable: AsyncIterable<SDKUserMessage>;
  /** Queues one user turn (a text, or Anthropic content blocks). */
  send(content: string | readonly Record<string, unknown>[]): void;
  /** Ends the stream (the agent sees end of input). Idempotent. */
  end(): void;
}

/** Creates a stream with nothing queued. */
export function createPromptStream(): PromptStream {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;

  async function* iterate(): AsyncGenerator<SDKUserMessage> {
    for (;;) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  }

  return {
    iterable: iterate(),
    send(content) {
      if (ended) throw new Error('the prompt stream has ended');
      queue.push({
        type: 'user',
        message: { role: 'user', content },
        parent_tool_use_id: null,
      } as SDKUserMessage);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
  };
}
