/**
 * The lean stdio client: spawns an MCP server in its own process group and speaks
 * newline-delimited JSON-RPC on its stdin/stdout directly (`initialize`, then
 * `tools/call`s). The direct call measured by it is the stdio floor.
 */
import { spawnGroup } from '../lib/processes.js';
import type { RequestConnection, ToolResult } from './connection.js';

/** A request waiting for its answer. */
interface Waiter {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** Spawns `command args` and returns `{ call(tool, args), close() }`. */
export async function connectRawStdio(
  command: string,
  args: readonly string[],
): Promise<RequestConnection> {
  const group = spawnGroup(command, args, { stdin: 'pipe' });
  const { stdin: maybeStdin, stdout } = group.child;
  if (!maybeStdin || !stdout) throw new Error(`${command} has no stdio pipes`);
  const stdin = maybeStdin;
  stdout.removeAllListeners('data');
  const pending = new Map<number, Waiter>();
  let buffer = '';
  let nextId = 0;
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n');
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf('\n');
      if (!line.trim()) continue;
      const message = JSON.parse(line) as {
        id?: number;
        method?: string;
        result?: unknown;
        error?: { code: number; message: string };
      };
      if (message.id === undefined || message.method !== undefined) continue;
      const waiter = pending.get(message.id);
      if (!waiter) continue;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${message.error.code} ${message.error.message}`));
      else waiter.resolve(message.result);
    }
  });
  group.child.once('exit', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('the stdio server exited'));
    pending.clear();
  });

  function request(method: string, params: Record<string, unknown>): Promise<unknown> {
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
    call: async (tool, toolArgs) =>
      (await request('tools/call', { name: tool, arguments: toolArgs })) as ToolResult,
    close: () => group.stop(),
  };
}
