/** SDK v1 (`@modelcontextprotocol/sdk`) Client over Streamable HTTP or stdio, for the benches. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempHome } from '../lib/processes.mjs';

function wrap(client, cleanup = () => undefined) {
  return {
    call: (tool, args) => client.callTool({ name: tool, arguments: args }),
    async close() {
      await client.close();
      cleanup();
    },
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

/** Spawns `command args` and connects over stdio (HOME/XDG in a temp dir). */
export async function connectSdkV1Stdio(command, args) {
  const home = tempHome();
  const client = new Client({ name: 'bench-sdk-v1', version: '1.0.0' });
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
