/**
 * The HTTP floor: a bare `node:http` JSON-RPC server on 127.0.0.1 that answers MCP
 * `initialize`, `tools/list` and `tools/call` of `echo` the way server-everything does,
 * with no MCP machinery at all. Run as a child; reports `{ port }` over IPC.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A JSON-RPC message as this server reads it. */
interface Message {
  id?: unknown;
  method?: string;
  params?: { protocolVersion?: string; arguments?: { message?: unknown } };
}

const ECHO_TOOL = {
  name: 'echo',
  description: 'Echoes back the input string',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
  },
};

function resultOf(message: Message): Record<string, unknown> {
  switch (message.method) {
    case 'initialize':
      return {
        protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'http-floor', version: '1.0.0' },
      };
    case 'tools/list':
      return { tools: [ECHO_TOOL] };
    case 'tools/call':
      return { content: [{ type: 'text', text: `Echo: ${message.params?.arguments?.message}` }] };
    default:
      return {};
  }
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let message: Message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Message;
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: resultOf(message) });
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () =>
  process.send?.({ port: (server.address() as AddressInfo).port }),
);
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
