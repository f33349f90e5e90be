/**
 * A scripted model on 127.0.0.1 for turns with real agents (test support, not product): it
 * speaks Anthropic Messages (`/v1/messages`, `/v1/messages/count_tokens`), OpenAI
 * Responses (`/v1/responses`), OpenAI Chat Completions (`/v1/chat/completions`), all
 * streaming, and the Gemini API (`/v1beta/models/<model>:streamGenerateContent`,
 * `:generateContent`, `:countTokens`), and answers each request from the test's script:
 * call a tool with these arguments, or answer with a text (in one delta, or paced: several
 * deltas some milliseconds apart, as {@link pacedScript} answers for the turn bench). A
 * Gemini request that asks for JSON under a schema (Gemini CLI's own routing and
 * next-speaker checks) is answered by the model itself with the smallest object the schema
 * allows (first enum values), not by the script. Every request is recorded as received, so
 * a test can read what the agent sent the model (earlier turns, tools offered, system
 * prompt).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { geminiReply, jsonSchemaOf, smallest } from './scripted-gemini.js';
import { anthropic, chat, responses, type StreamedReply } from './scripted-model-streams.js';

/** Which wire API a request came in on. */
export type ModelApi = 'anthropic' | 'responses' | 'chat' | 'gemini';

/** One request as the script sees it, normalized across the three APIs. */
export interface ModelRequest {
  readonly api: ModelApi;
  /** The parsed request body, as sent. */
  readonly body: Record<string, unknown>;
  /** Names of the tools offered (Responses namespace tools as `<namespace>/<name>`). */
  readonly tools: readonly string[];
  /** The text of every message of the conversation, system prompt and tool results included. */
  readonly transcript: string;
  /** Results of tool calls in the conversation, in order (their text). */
  readonly toolResults: readonly string[];
  /** Results of tool calls since the last user prompt (this turn's), in order. */
  readonly turnToolResults: readonly string[];
  /** Names of the tools the model called since the last user prompt, in order. */
  readonly turnToolCalls: readonly string[];
  /** A Gemini request for JSON under a schema, answered by the model itself. */
  readonly structured?: boolean;
  /** The last user text of the conversation. */
  readonly lastUserText: string;
}

/** What the model answers: a streamed reply, or the API refusing the request with this HTTP
 * status and the API's own error body. */
export type ModelReply = StreamedReply | { readonly httpError: number };

/** The error body each API answers an HTTP error with. */
function errorBody(api: ModelApi, status: number): unknown {
  const message = status === 401 ? 'invalid x-api-key' : 'The server had an error';
  if (api === 'anthropic') {
    const type = status === 401 ? 'authentication_error' : 'api_error';
    return { type: 'error', error: { type, message } };
  }
  if (api === 'gemini') return { error: { code: status, message, status: 'UNAUTHENTICATED' } };
  return {
    error: {
      message,
      type: 'invalid_request_error',
      code: status === 401 ? 'invalid_api_key' : null,
    },
  };
}

/** Decides the reply to one request. */
export type ModelScript = (request: ModelRequest) => ModelReply | Promise<ModelReply>;

/** A running scripted model. */
export interface ScriptedModel {
  /** `http://127.0.0.1:<port>` (Anthropic clients take it as it is, OpenAI ones with `/v1`). */
  readonly url: string;
  readonly requests: ModelRequest[];
  /** Replaces the script (the default answers "ok"). */
  script(script: ModelScript): void;
  close(): Promise<void>;
}

/** Starts the model on a dynamic loopback port. */
export async function startScriptedModel(initial?: ModelScript): Promise<ScriptedModel> {
  let script: ModelScript = initial ?? (() => ({ text: 'ok' }));
  const requests: ModelRequest[] = [];
  let ids = 0;

  const server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '').split('?')[0] ?? '';
    const body = chunks.length
      ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
      : {};
    if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) {
      return json(res, { input_tokens: 10 });
    }
    if (req.method === 'POST' && path.endsWith(':countTokens')) {
      return json(res, { totalTokens: 10 });
    }
    const api: ModelApi | undefined = path.endsWith('/messages')
      ? 'anthropic'
      : path.endsWith('/responses')
        ? 'responses'
        : path.endsWith('/chat/completions')
          ? 'chat'
          : /:(stream)?generateContent$/i.test(path)
            ? 'gemini'
            : undefined;
    if (req.method !== 'POST' || !api) {
      if (req.method === 'GET' && path.endsWith('/models')) return json(res, { data: [] });
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end('{"error":{"message":"not found"}}');
    }
    const request = normalize(api, body);
    requests.push(request);
    ids += 1;
    if (api === 'gemini') {
      const schema = jsonSchemaOf(body);
      const reply = schema ? { text: JSON.stringify(smallest(schema)) } : await script(request);
      if ('httpError' in reply)
        return httpError(res, reply.httpError, errorBody(api, reply.httpError));
      const whole = 'deltas' in reply ? { text: reply.deltas.join('') } : reply;
      return geminiReply(res, whole, path.includes(':streamGenerateContent'));
    }
    const reply = await script(request);
    if ('httpError' in reply)
      return httpError(res, reply.httpError, errorBody(api, reply.httpError));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const stream = api === 'anthropic' ? anthropic : api === 'responses' ? responses : chat;
    await stream(res, reply, ids);
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(next) {
      script = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function httpError(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** Text of any content shape the three APIs use. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).join('\n');
  if (content && typeof content === 'object') {
    const part = content as Record<string, unknown>;
    if (typeof part.text === 'string') return part.text;
    if ('content' in part) return textOf(part.content);
    if (Array.isArray(part.parts)) return textOf(part.parts);
    if (typeof part.output === 'string') return part.output;
  }
  return '';
}

function normalize(api: ModelApi, body: Record<string, unknown>): ModelRequest {
  const tools: string[] = [];
  const visit = (list: unknown, prefix: string) => {
    for (const tool of Array.isArray(list) ? list : []) {
      const t = tool as { name?: string; tools?: unknown; function?: { name?: string } };
      if (Array.isArray(t.tools)) visit(t.tools, `${t.name}/`);
      else if (t.function?.name) tools.push(`${prefix}${t.function.name}`);
      else if (typeof t.name === 'string') tools.push(`${prefix}${t.name}`);
    }
  };
  visit(body.tools, '');
  for (const group of Array.isArray(body.tools) ? body.tools : []) {
    for (const declaration of (group as { functionDeclarations?: { name?: string }[] })
      .functionDeclarations ?? []) {
      if (typeof declaration.name === 'string') tools.push(declaration.name);
    }
  }
  const parts: string[] = [];
  const toolResults: string[] = [];
  let turnToolResults: string[] = [];
  let turnToolCalls: string[] = [];
  let lastUserText = '';
  const called = (name: unknown) => {
    if (typeof name === 'string') turnToolCalls.push(name);
  };
  const result = (text: string) => {
    // A result with no text (Claude's ToolSearch answers tool references) is no answer.
    if (!text) return;
    toolResults.push(text);
    turnToolResults.push(text);
    parts.push(text);
  };
  const prompt = (text: string) => {
    lastUserText = text;
    turnToolResults = [];
    turnToolCalls = [];
  };
  const system = body.system ?? body.instructions ?? body.systemInstruction;
  if (system) parts.push(textOf(system));
  if (api === 'gemini') {
    for (const content of Array.isArray(body.contents) ? body.contents : []) {
      const c = content as { role?: string; parts?: Record<string, unknown>[] };
      for (const part of c.parts ?? []) {
        if (part.functionCall) called((part.functionCall as { name?: unknown }).name);
        else if (part.functionResponse) {
          result(JSON.stringify((part.functionResponse as { response?: unknown }).response));
        } else if (typeof part.text === 'string') {
          parts.push(part.text);
          // Gemini CLI sends its own context as user text in tags: no prompt of the user.
          if (c.role === 'user' && part.text && !part.text.startsWith('<')) prompt(part.text);
        }
      }
    }
    return {
      api,
      body,
      tools,
      transcript: parts.join('\n'),
      toolResults,
      turnToolResults,
      turnToolCalls,
      lastUserText,
      ...(jsonSchemaOf(body) ? { structured: true } : {}),
    };
  }
  const messages = (api === 'responses' ? body.input : body.messages) as unknown;
  for (const message of Array.isArray(messages)
    ? messages
    : typeof messages === 'string'
      ? [{ role: 'user', content: messages }]
      : []) {
    const m = message as Record<string, unknown>;
    if (m.type === 'function_call_output') {
      result(textOf(m.output));
      continue;
    }
    if (m.type === 'function_call') {
      called(m.name);
      continue;
    }
    for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      called((call as { function?: { name?: unknown } }).function?.name);
    }
    if (m.role === 'tool') {
      result(textOf(m.content));
      continue;
    }
    if (Array.isArray(m.content)) {
      for (const block of m.content as Record<string, unknown>[]) {
        if (block.type === 'tool_result') result(textOf(block.content));
        else if (block.type === 'tool_use') called(block.name);
        else {
          const text = textOf(block);
          parts.push(text);
          if (m.role === 'user' && text && !text.startsWith('<system-reminder>')) prompt(text);
        }
      }
    } else {
      const text = textOf(m.content);
      parts.push(text);
      if (m.role === 'user' && text) prompt(text);
    }
  }
  return {
    api,
    body,
    tools,
    transcript: parts.join('\n'),
    toolResults,
    turnToolResults,
    turnToolCalls,
    lastUserText,
  };
}

/**
 * The usual script of a tool-calling turn: call `tool` (the name as this API offers it)
 * with `args`, then answer with a text quoting the tool's result. A request that offers no
 * tools (a title request) gets a short title.
 */
export function callToolThenAnswer(
  tool: (request: ModelRequest) => string | undefined,
  args: Record<string, unknown>,
): ModelScript {
  return (request) => {
    if (request.tools.length === 0) return { text: 'Scripted title' };
    const seen = request.turnToolResults.length;
    if (seen > 0) return { text: `The tool said: ${request.turnToolResults[seen - 1]}` };
    const name = tool(request);
    return name ? { toolCall: { name, arguments: args } } : { text: 'no such tool offered' };
  };
}

/** The delta texts of a paced turn whose prompt holds the marker of `id`: `[[e:<id>:<k>]] `. */
export function deltaTexts(id: string, deltas: number): string[] {
  return Array.from({ length: deltas }, (_, k) => `[[e:${id}:${String(k).padStart(2, '0')}]] `);
}

/**
 * The paced mode of the turn bench: a prompt carries a marker `[[p:<id>]]`, and the model
 * answers the conversation's last one with {@link deltaTexts} (`deltas` of them, `gapMs`
 * apart), so each reaches the client as its own event and every event can be matched to
 * its delta. A request that offers no tools or holds no marker (a title request) gets a
 * short title.
 */
export function pacedScript({ deltas = 20, gapMs = 10 } = {}): ModelScript {
  return (request) => {
    const ids = [...JSON.stringify(request.body).matchAll(/\[\[p:([\w-]+)\]\]/g)];
    const id = ids.at(-1)?.[1];
    if (!id || request.tools.length === 0) return { text: 'Bench title' };
    return { deltas: deltaTexts(id, deltas), gapMs };
  };
}
