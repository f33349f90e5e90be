/**
 * The lean client: MCP 2025-06-18 over `node:http` with one keep-alive Agent, nothing
 * else. It runs `initialize` (keeping an `Mcp-Session-Id` if the server issues one), then
 * `tools/call`s, and reads JSON or SSE answers, so its own cost stays far below a server's.
 */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import type { Endpoint, RequestConnection, ToolResult } from './connection.js';
import { type HttpAnswer, parseAnswer } from './parse-answer.js';

/** An answer with its headers. */
interface Answer extends HttpAnswer {
  readonly headers: IncomingHttpHeaders;
}

const PROTOCOL_VERSION = '2025-06-18';

/** One POST (or `method`); resolves to `{ status, type, text, headers }`. */
function post(
  agent: Agent,
  url: URL,
  headers: Record<string, string>,
  body: string,
  method = 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: res.headers['content-type'] ?? '',
            text: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Connects to `target` (`{ url, headers }`) and returns `{ request(method, params), call(tool,
 * args), close() }`. `request` resolves to the JSON-RPC result and throws on an error.
 */
export async function connectRawHttp(target: Endpoint): Promise<RequestConnection> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const url = new URL(target.url);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...target.headers,
  };
  let nextId = 0;

  async function send(method: string, params: Record<string, unknown>) {
    nextId += 1;
    const id = nextId;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const answer = await post(agent, url, headers, body);
    return { answer, message: parseAnswer(answer, id, `${method} at ${target.name}`) };
  }

  const { answer } = await send('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'bench-raw-http', version: '1.0.0' },
  });
  const sessionId = answer.headers['mcp-session-id'];
  if (Array.isArray(sessionId)) throw new Error(`${target.name}: more than one Mcp-Session-Id`);
  if (sessionId) headers['mcp-session-id'] = sessionId;
  headers['mcp-protocol-version'] = PROTOCOL_VERSION;
  await post(
    agent,
    url,
    headers,
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );

  return {
    async request(method, params) {
      return (await send(method, params)).message.result;
    },
    async call(tool, args) {
      return (await send('tools/call', { name: tool, arguments: args })).message
        .result as ToolResult;
    },
    async close() {
      // Ends the server's session, as a polite 2025 client does.
      if (sessionId) await post(agent, url, headers, '', 'DELETE').catch(() => undefined);
      agent.destroy();
    },
  };
}
