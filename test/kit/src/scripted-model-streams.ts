/**
 * How the scripted model writes a reply on the wire, per API: the streamed events of
 * Anthropic Messages, OpenAI Responses and OpenAI Chat Completions, a text in one delta or
 * paced. Reading requests and deciding replies is `scripted-model.ts`'s.
 */
import type { ServerResponse } from 'node:http';

/** A reply the model streams as its answer. */
export type StreamedReply =
  | { readonly text: string }
  /** A text streamed as these deltas, `gapMs` apart (Gemini gets them joined, in one chunk). */
  | { readonly deltas: readonly string[]; readonly gapMs?: number }
  | { readonly toolCall: { readonly name: string; readonly arguments: Record<string, unknown> } };

function sse(res: ServerResponse, event: string | undefined, data: unknown): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

/** A text reply as its deltas and the pause between two of them. */
type TextReply = { readonly deltas: readonly string[]; readonly gapMs: number };

/** `reply` as deltas when it is a text (one delta, no pause, unless paced), else undefined. */
function textReply(reply: StreamedReply): TextReply | undefined {
  if ('deltas' in reply) return { deltas: reply.deltas, gapMs: reply.gapMs ?? 0 };
  return 'text' in reply ? { deltas: [reply.text], gapMs: 0 } : undefined;
}

/** Writes each delta through `write`, `gapMs` apart. */
async function paced({ deltas, gapMs }: TextReply, write: (delta: string) => void) {
  for (const [k, delta] of deltas.entries()) {
    if (k > 0 && gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    write(delta);
  }
}

export async function anthropic(
  res: ServerResponse,
  reply: StreamedReply,
  id: number,
): Promise<void> {
  const usage = { input_tokens: 10, output_tokens: 5 };
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      model: 'scripted-model',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  const text = textReply(reply);
  if (text) {
    sse(res, 'content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    await paced(text, (delta) =>
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: delta },
      }),
    );
    sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  } else if ('toolCall' in reply) {
    sse(res, 'content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: `toolu_${id}`, name: reply.toolCall.name, input: {} },
    });
    sse(res, 'content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.toolCall.arguments) },
    });
    sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  }
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: text ? 'end_turn' : 'tool_use', stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
}

export async function responses(
  res: ServerResponse,
  reply: StreamedReply,
  id: number,
): Promise<void> {
  const response = { id: `resp_${id}`, object: 'response', status: 'in_progress', output: [] };
  sse(res, 'response.created', { type: 'response.created', response });
  let item: Record<string, unknown>;
  const text = textReply(reply);
  if (text) {
    item = {
      type: 'message',
      role: 'assistant',
      id: `msg_${id}`,
      status: 'completed',
      content: [{ type: 'output_text', text: text.deltas.join(''), annotations: [] }],
    };
    sse(res, 'response.output_item.added', {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    });
    await paced(text, (delta) =>
      sse(res, 'response.output_text.delta', {
        type: 'response.output_text.delta',
        item_id: `msg_${id}`,
        output_index: 0,
        content_index: 0,
        delta,
      }),
    );
  } else {
    const { toolCall } = reply as Extract<StreamedReply, { toolCall: unknown }>;
    // Responses namespace tools: the call names the inner tool and carries the namespace.
    const [namespace, name] = toolCall.name.includes('/')
      ? toolCall.name.split('/')
      : [undefined, toolCall.name];
    item = {
      type: 'function_call',
      id: `fc_${id}`,
      call_id: `call_${id}`,
      name,
      ...(namespace ? { namespace } : {}),
      arguments: JSON.stringify(toolCall.arguments),
      status: 'completed',
    };
    sse(res, 'response.output_item.added', {
      type: 'response.output_item.added',
      output_index: 0,
      item,
    });
  }
  sse(res, 'response.output_item.done', {
    type: 'response.output_item.done',
    output_index: 0,
    item,
  });
  sse(res, 'response.completed', {
    type: 'response.completed',
    response: {
      ...response,
      status: 'completed',
      output: [item],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    },
  });
}

export async function chat(res: ServerResponse, reply: StreamedReply, id: number): Promise<void> {
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: `chatcmpl-${id}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: 'scripted-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const text = textReply(reply);
  if (text) {
    await paced(text, (content) =>
      sse(res, undefined, chunk({ role: 'assistant', content }, null)),
    );
    sse(res, undefined, chunk({}, 'stop'));
  } else {
    const { toolCall } = reply as Extract<StreamedReply, { toolCall: unknown }>;
    sse(
      res,
      undefined,
      chunk(
        {
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: `call_${id}`,
              type: 'function',
              function: {
                name: toolCall.name,
                arguments: JSON.stringify(toolCall.arguments),
              },
            },
          ],
        },
        null,
      ),
    );
    sse(res, undefined, chunk({}, 'tool_calls'));
  }
  sse(res, undefined, {
    ...chunk({}, null),
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  res.write('data: [DONE]\n\n');
}
