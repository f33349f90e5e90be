/**
 * SDK v2 clients that answer every elicitation at once (`accept`, `{confirm: true}`), for
 * the elicitation bench: over stdio straight to an upstream fixture, or over HTTP to the
 * `connector` server, on MCP 2025 (the capability declared in `initialize`, the question on
 * the call's response stream) or 2026-07-28 (declared in each request's `_meta`, the
 * question as an `input_required` result the SDK answers and retries).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempHome } from '../lib/processes.js';
import type { Connection, Endpoint, ToolResult } from './connection.js';

function elicitingClient(modern: boolean): { client: Client; asked: () => number } {
  let asked = 0;
  const client = new Client(
    { name: 'bench-eliciting', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(modern && { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    },
  );
  client.setRequestHandler('elicitation/create', async () => {
    asked += 1;
    return { action: 'accept', content: { confirm: true } };
  });
  return { client, asked: () => asked };
}

/** A connection that also says how many questions it answered. */
export interface ElicitingConnection extends Connection {
  asked(): number;
}

function wrap(
  { client, asked }: ReturnType<typeof elicitingClient>,
  cleanup: () => void = () => undefined,
): ElicitingConnection {
  return {
    asked,
    call: async (tool, args) =>
      (await client.callTool({ name: tool, arguments: args })) as ToolResult,
    async close() {
      await client.close();
      cleanup();
    },
  };
}

/** Connects to the `connector` server at `target`; MCP 2025 unless `modern`. */
export async function connectElicitingHttp(
  target: Endpoint,
  { modern = false } = {},
): Promise<ElicitingConnection> {
  const made = elicitingClient(modern);
  await made.client.connect(
    new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: target.headers },
    }),
  );
  return wrap(made);
}

/** Spawns `command args` and connects over stdio (HOME/XDG in a temp dir). */
export async function connectElicitingStdio(
  command: string,
  args: string[],
): Promise<ElicitingConnection> {
  const home = tempHome();
  const made = elicitingClient(false);
  await made.client.connect(
    new StdioClientTransport({
      command,
      args,
      env: { PATH: process.env.PATH ?? '', ...home.env },
      stderr: 'ignore',
    }),
  );
  return wrap(made, home.remove);
}
