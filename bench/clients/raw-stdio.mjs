/**
 * The lean stdio client: spawns an MCP server in its own process group and speaks
 * newline-delimited JSON-RPC on its stdin/stdout directly (`initialize`, then
 * `tools/call`s). The direct call measured by it is the stdio floor.
 */
import { spawnGroup } from '../lib/processes.mjs';

/** Spawns `command args` and returns `{ call(tool, args), close() }`. */
export async function connectRawStdio(command, args) {
  const group = spawnGroup(command, args, { stdin: 'pipe' });
  const { stdin, stdout } = group.child;
  stdout.removeAllListeners('data');
  const pending = new Map();
  let buffer = '';
  let nextId = 0;
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk) => {
    buffer += chunk;
    let end = buffer.indexOf('\n');
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf('\n');
      if (!line.trim()) continue;
      const message = JSON.parse(line);
      const waiter = message.id === undefined ? undefined : pending.get(message.id);
      if (!waiter || message.method !== undefined) continue;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${message.error.code} ${message.error.message}`));
      else waiter.resolve(message.result);
    }
  });
  group.child.once('exit', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('the stdio server exited'));
    pending.clear();
  });

  function request(method, params) {
    nextId += 1;
    const id = nextId;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench-raw-stdio', version: '1.0.0' },
  });
  stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    request,
    call: (tool, toolArgs) => request('tools/call', { name: tool, arguments: toolArgs }),
    close: () => group.stop(),
  };
}
