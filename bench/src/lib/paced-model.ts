/**
 * A paced streaming model on 127.0.0.1 for the turn bench: it speaks Anthropic Messages,
 * OpenAI Responses and OpenAI Chat Completions (all streaming), like the tests' scripted
 * model (test/support/scripted-model.ts, which the bench package cannot import: it is built
 * from bench/src only), but answers every turn with `deltas` text deltas `gapMs` apart, so
 * each reaches the client as its own event. The prompt carries a marker `[[p:<id>]]`; delta
 * `k` is `[[e:<id>:<k>]] `, so the shim and the clients can match every event to its delta.
 * A request that offers no tools (a title request) gets a short title without markers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running paced model. */
export interface PacedModel {
  /** `http://127.0.0.1:<port>` (OpenAI clients take it with `/v1`). */
  readonly url: string;
  /** Requests answered so far, by API. */
  readonly answered: Record<'anthropic' | 'responses' | 'chat', number>;
  close(): Promise<void>;
}

/** The delta texts of a turn whose prompt holds the marker of `id`. */
export function deltaTexts(id: string, deltas: number): string[] {
  return Array.from({ length: deltas }, (_, k) => `[[e:${id}:${String(k).padStart(2, '0')}]] `);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the model on a dynamic loopback port. */
export async function startPacedModel({
  deltas = 20,
  gapMs = 10,
}: {
  deltas?: number;
  gapMs?: number;
} = {}): Promise<PacedModel> {
  const answered = { anthropic: 0, responses: 0, chat: 0 };
  const server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && path.endsWith('/models')) return json(res, { data: [] });
    if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) {
      return json(res, { input_tokens: 10 });
    }
    const api = path.endsWith('/messages')
      ? 'anthropic'
      : path.endsWith('/responses')
        ? 'responses'
        : path.endsWith('/chat/completions')
          ? 'chat'
          : undefined;
    if (req.method !== 'POST' || !api) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end('{"error":{"message":"not found"}}');
    }
    answered[api] += 1;
    const body = JSON.parse(raw || '{}') as { tools?: unknown[] };
    // The current turn's prompt is the conversation's last prompt marker.
    const ids = [...raw.matchAll(/\[\[p:([\w-]+)\]\]/g)].map((match) => match[1]!);
    const id = ids.at(-1);
    const texts =
      !id || !Array.isArray(body.tools) || body.tools.length === 0
        ? ['Bench title']
        : deltaTexts(id, deltas);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const stream = api === 'anthropic' ? anthropic : api === 'responses' ? responses : chat;
    await stream(res, texts, answered[api], texts.length > 1 ? gapMs : 0);
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function sse(res: ServerResponse, event: string | undefined, data: unknown): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

/** Writes each text through `write`, `gapMs` apart. */
async function paced(texts: readonly string[], gapMs: number, write: (text: string) => void) {
  for (const [k, text] of texts.entries()) {
    if (k > 0 && gapMs > 0) await sleep(gapMs);
    write(text);
  }
}

async function anthropic(res: ServerResponse, texts: string[], n: number, gapMs: number) {
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: 'bench-model',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  });
  sse(res, 'content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  });
  await paced(texts, gapMs, (text) =>
    sse(res, 'content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text },
    }),
  );
  sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
}

async function responses(res: ServerResponse, texts: string[], n: number, gapMs: number) {
  const response = { id: `resp_${n}`, object: 'response', status: 'in_progress', output: [] };
  sse(res, 'response.created', { type: 'response.created', response });
  const item = {
    type: 'message',
    role: 'assistant',
    id: `msg_${n}`,
    status: 'completed',
    content: [{ type: 'output_text', text: texts.join(''), annotations: [] }],
  };
  sse(res, 'response.output_item.added', {
    type: 'response.output_item.added',
    output_index: 0,
    item: { ...item, status: 'in_progress', content: [] },
  });
  await paced(texts, gapMs, (delta) =>
    sse(res, 'response.output_text.delta', {
      type: 'response.output_text.delta',
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta,
    }),
  );
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

async function chat(res: ServerResponse, texts: string[], n: number, gapMs: number) {
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: `chatcmpl-${n}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: 'bench-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  await paced(texts, gapMs, (content) =>
    sse(res, undefined, chunk({ role: 'assistant', content }, null)),
  );
  sse(res, undefined, chunk({}, 'stop'));
  sse(res, undefined, {
    ...chunk({}, null),
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  res.write('data: [DONE]\n\n');
}
