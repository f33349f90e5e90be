/**
 * A loopback MCP server (Streamable HTTP, POST only, test support) whose one tool
 * `confirm_delete` asks the person before it acts: its `tools/call` is answered as an SSE
 * stream carrying an `elicitation/create` for `{confirm: boolean}` ("Delete 40 files?"),
 * and the result follows once the client POSTs its answer: `{"deleted":true}` for an
 * accept with `confirm: true`, else `{"deleted":false,"action":"<action>"}`. A client
 * whose `initialize` declared no elicitation is never asked (`action` `"none"`). It
 * records every `initialize` params, so a test sees what each agent's MCP client declares.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The question `confirm_delete` asks. */
export const CONFIRM_DELETE = {
  mode: 'form',
  message: 'Delete 40 files?',
  requestedSchema: {
    type: 'object',
    properties: { confirm: { type: 'boolean', title: 'Delete them' } },
    required: ['confirm'],
  },
} as const;

/** A running eliciting server. */
export interface ElicitingMcpServer {
  /** Its MCP endpoint (`http://127.0.0.1:<port>/mcp`). */
  readonly url: string;
  /** The params of every `initialize` it answered, in order. */
  readonly initializes: Record<string, unknown>[];
  /** Each elicitation answer the clients POSTed (the JSON-RPC `result`, or `error`). */
  readonly answers: unknown[];
  close(): Promise<void>;
}

interface Message {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

/** Longest wait for a client's answer before the call ends as not answered. */
const ANSWER_WAIT_MS = 120_000;

async function bodyOf(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

/** Starts the server on a dynamic port of 127.0.0.1. */
export async function startElicitingMcpServer(): Promise<ElicitingMcpServer> {
  const initializes: Record<string, unknown>[] = [];
  const answers: unknown[] = [];
  const waiting = new Map<string, (answer: Message) => void>();
  let elicits = false;
  let sequence = 0;
  const json = (res: ServerResponse, id: Message['id'], result: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'eliciting' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      let message: Message;
      try {
        message = JSON.parse(await bodyOf(req)) as Message;
      } catch {
        return void res.writeHead(400).end();
      }
      if (message.method === undefined && message.id !== undefined) {
        answers.push(message.result ?? { error: message.error });
        waiting.get(String(message.id))?.(message);
        return void res.writeHead(202).end();
      }
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'initialize') {
        const params = message.params ?? {};
        initializes.push(params);
        elicits = Boolean((params.capabilities as { elicitation?: unknown })?.elicitation);
        return json(res, message.id, {
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'eliciting', version: '1.0.0' },
        });
      }
      if (message.method === 'tools/list') {
        return json(res, message.id, {
          tools: [
            {
              name: 'confirm_delete',
              description: 'Deletes 40 files, after asking the person.',
              inputSchema: { type: 'object', properties: {} },
            },
          ],
        });
      }
      if (message.method === 'tools/call') return call(res, message);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32601, message: 'Method not found' },
        }),
      );
    })();
  });

  const call = async (res: ServerResponse, message: Message) => {
    const result = (text: string) => ({
      jsonrpc: '2.0',
      id: message.id,
      result: { content: [{ type: 'text', text }] },
    });
    if (!elicits) {
      return json(
        res,
        message.id,
        result(JSON.stringify({ deleted: false, action: 'none' })).result,
      );
    }
    sequence += 1;
    const id = `elicit-${sequence}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'eliciting' });
    const answered = new Promise<Message | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), ANSWER_WAIT_MS);
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
    });
    const request = { jsonrpc: '2.0', id, method: 'elicitation/create', params: CONFIRM_DELETE };
    res.write(`event: message\ndata: ${JSON.stringify(request)}\n\n`);
    const answer = await answered;
    waiting.delete(id);
    const got = (answer?.result ?? {}) as { action?: string; content?: { confirm?: unknown } };
    const text =
      got.action === 'accept' && got.content?.confirm === true
        ? JSON.stringify({ deleted: true })
        : JSON.stringify({ deleted: false, action: got.action ?? 'none' });
    res.end(`event: message\ndata: ${JSON.stringify(result(text))}\n\n`);
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    initializes,
    answers,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
