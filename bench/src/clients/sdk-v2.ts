/**
 * SDK v2 (`@modelcontextprotocol/client`) Client over Streamable HTTP or stdio, for the
 * benches. `modern: true` pins MCP 2026-07-28 (stateless, `_meta` envelope, Mcp-* headers).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempHome } from '../lib/processes.js';
import type { Connection, Endpoint, ToolResult } from './connection.js';

function wrap(client: Client, cleanup: () => void = () => undefined): Connection {
  return {
    call: async (tool, args) =>
      (await client.callTool({ name: tool, arguments: args })) as ToolResult,
    async close() {
      await client.close();
      cleanup();
    },
  };
}

/** Connects to `target`; MCP 2025 unless `modern`. */
export async function connectSdkV2Http(
  target: Endpoint,
  { modern = false } = {},
): Promise<Connection> {
  const client = new Client(
    { name: 'bench-sdk-v2', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: target.headers },
    }),
  );
  return wrap(client);
}

/** Spawns `command args` and connects over stdio (HOME/XDG in a temp dir). */
export async function connectSdkV2Stdio(command: string, args: string[]): Promise<Connection> {
  const home = tempHome();
  const client = new Client({ name: 'bench-sdk-v2', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      env: { PATH: process.env.PATH ?? '', ...home.env },
      stderr: 'ignore',
    }),
  );
  return wrap(client, home.remove);
}
