/**
 * The stdio fixture `echo` of the kit's connectors works as installed: copied into a
 * store under a temp home, it answers a real MCP SDK v2 client, so reconcile and server
 * tests can start it from any folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { openStore } from '@tutti/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '@tutti/test-kit';

const fixtures = `${FIXTURES}connectors/`;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('echo fixture connector', () => {
  it('serves echo and add to an MCP client when started from its installed release', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tutti-fixture-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    const installed = await (await openStore(home)).install(join(fixtures, 'echo'));
    const mcp = installed.paths.mcp;
    if (mcp?.transport !== 'stdio') throw new Error('echo declares a stdio MCP server');
    const client = new Client({ name: 'fixture-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: mcp.command,
        args: [...mcp.args],
        cwd: home,
        env: { PATH: process.env.PATH ?? '' },
      }),
    );
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'add']);
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'hi' }]);
  });
});
