/**
 * The lean proxy: the least an HTTP-to-stdio aggregator can do. A bare `node:http` server
 * on 127.0.0.1 forwards each `tools/call` of `echo` as one newline-delimited JSON-RPC
 * line to server-everything's stdin and answers with its reply; no MCP SDK, no checks.
 * It measures what three processes ping-ponging on this machine cost by themselves.
 * Run as a child; reports `{ port }` over IPC.
 */
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A JSON-RPC message as this proxy reads it. */
interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

const entry = process.argv[2];
if (!entry) throw new Error('usage: lean-proxy-server <server-everything entry>');
const upstream = spawn(process.execPath, [entry, 'stdio'], {
  stdio: ['pipe', 'pipe', 'ignore'],
  env: process.env,
});
const pending = new Map<number, (message: Message) => void>();
let nextId = 0;
let buffer = '';
upstream.stdout.setEncoding('utf8');
upstream.stdout.on('data', (chunk: string) => {
  buffer += chunk;
  let end = buffer.indexOf('\n');
  while (end >= 0) {
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    end = buffer.indexOf('\n');
    const message = JSON.parse(line) as Message;
    if (message.id === undefined) continue;
    const answer = pending.get(message.id);
    if (!answer) continue;
    pending.delete(message.id);
    answer(message);
  }
});

function upstreamRequest(method: string, params: unknown): Promise<Message> {
  nextId += 1;
  const id = nextId;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    upstream.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
}

await upstreamRequest('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'lean-proxy', version: '1.0.0' },
});
upstream.stdin.write(
  `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
);

function send(res: ServerResponse, id: unknown, result: Record<string, unknown>): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id, ...result });
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    let message: Message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Message;
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202).end();
    } else if (message.method === 'tools/call') {
      const reply = await upstreamRequest('tools/call', message.params);
      send(res, message.id, reply.error ? { error: reply.error } : { result: reply.result });
    } else if (message.method === 'initialize') {
      const result = {
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'lean-proxy', version: '1.0.0' },
      };
      send(res, message.id, { result });
    } else {
      send(res, message.id, { result: {} });
    }
  });
});
server.listen(0, '127.0.0.1', () =>
  process.send?.({ port: (server.address() as AddressInfo).port }),
);
const stop = () => {
  upstream.kill();
  process.exit(0);
};
process.on('disconnect', stop);
process.on('SIGTERM', stop);
