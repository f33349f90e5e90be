#!/usr/bin/env node
// The `notes` demo connector: an MCP server over stdio (newline-delimited JSON-RPC 2.0).
// Plain Node 20 with no dependencies, not the MCP SDK: the daemon runs it from an installed
// release folder (<tutti home>/releases/<digest>) that carries no node_modules, and a
// demo should run from any folder. Tools are in tools.mjs, storage in notes-file.mjs.
import { createInterface } from 'node:readline';
import { callTool, toolList } from './tools.mjs';

const LATEST = '2025-06-18';
const SUPPORTED = [LATEST, '2025-03-26', '2024-11-05'];

class RpcError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Answers one request's `result`, or throws an RpcError. */
const methods = {
  initialize: (params) => ({
    protocolVersion: SUPPORTED.includes(params?.protocolVersion) ? params.protocolVersion : LATEST,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'notes', title: 'Notes', version: '1.0.0' },
  }),
  ping: () => ({}),
  'tools/list': () => ({ tools: toolList }),
  'tools/call': async (params) => {
    if (typeof params?.name !== 'string') {
      throw new RpcError(-32602, 'tools/call needs params.name, the name of a tool');
    }
    const result = await callTool(params.name, params.arguments);
    if (!result) {
      const known = toolList.map((tool) => tool.name).join(', ');
      throw new RpcError(-32602, `Unknown tool: ${params.name} (tools: ${known})`);
    }
    return result;
  },
};

const send = (message) =>
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

async function handle(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return send({ id: null, error: { code: -32700, message: 'Parse error: not a JSON line' } });
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return send({ id: null, error: { code: -32600, message: 'Invalid Request: not an object' } });
  }
  const { id, method, params } = message;
  // Notifications (no id) such as notifications/initialized need no answer; responses
  // (no method) cannot be ours, as this server sends no requests.
  if (id === undefined || typeof method !== 'string') return;
  try {
    const run = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!run) throw new RpcError(-32601, `Method not found: ${method}`);
    send({ id, result: await run(params) });
  } catch (error) {
    const code = error instanceof RpcError ? error.code : -32603;
    send({ id, error: { code, message: error.message } });
  }
}

createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY }).on(
  'line',
  (line) => {
    if (line.trim() !== '') handle(line);
  },
);
