/** SDK v1 (`@modelcontextprotocol/sdk`) Client over Streamable HTTP, for the benches. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

function wrap(client) {
  return {
    call: (tool, args) => client.callTool({ name: tool, arguments: args }),
    close: () => client.close(),
  };
}

/** Connects to `target` (`{ url, headers }`) over Streamable HTTP (MCP 2025). */
export async function connectSdkV1Http(target) {
  const client = new Client({ name: 'bench-sdk-v1', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: target.headers },
    }),
  );
  return wrap(client);
}
