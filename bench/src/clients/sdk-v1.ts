/** SDK v1 (`@modelcontextprotocol/sdk`) Client over Streamable HTTP, for the benches. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Connection, Endpoint, ToolResult } from './connection.js';

function wrap(client: Client): Connection {
  return {
    call: async (tool, args) =>
      (await client.callTool({ name: tool, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

/** Connects to `target` over Streamable HTTP (MCP 2025). */
export async function connectSdkV1Http(target: Endpoint): Promise<Connection> {
  const client = new Client({ name: 'bench-sdk-v1', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: target.headers },
    }),
  );
  return wrap(client);
}
