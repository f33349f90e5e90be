/**
 * A real stdio upstream for the server tests: the SDK v2 client over a spawned
 * `dying-stdio-upstream.mjs`, adapted to {@link UpstreamClient}. HOME and XDG dirs point
 * at a temp dir so nothing touches the real user's files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { UpstreamCallResult, UpstreamClient, UpstreamTool } from '../../contracts/index.js';
import { abortSignalOf } from '../../upstream/abort-signal.js';

/** A connected stdio upstream. */
export interface StdioUpstream extends UpstreamClient {
  readonly tools: UpstreamTool[];
  /** Pid of the upstream process. */
  readonly pid: number | undefined;
  /** Closes the client and kills the process if it still runs. */
  close(): Promise<void>;
}

/** Spawns the dying stdio fixture and lists its tools. */
export async function startStdioUpstream(): Promise<StdioUpstream> {
  const home = mkdtempSync(join(tmpdir(), 'tutti-stdio-upstream-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fileURLToPath(new URL('./dying-stdio-upstream.mjs', import.meta.url))],
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'tutti-test-upstream-client', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return {
    tools: tools as UpstreamTool[],
    pid: transport.pid ?? undefined,
    async callTool(name, args, options) {
      const { signal, release } = abortSignalOf(options?.signal);
      try {
        const result = await client.callTool({ name, arguments: args }, { signal });
        return result as UpstreamCallResult;
      } finally {
        release();
      }
    },
    async close() {
      await client.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
