/**
 * The real SDK clients against a listening server: SDK v1 (2025 only) and SDK v2 in
 * `legacy`, `auto` and pinned 2026-07-28 modes, over a real 127.0.0.1 socket.
 */
import { Writable } from 'node:stream';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConnectorServer, createConnectorServer } from './connector-server.js';
import { createFakeUpstream, text } from '@tutti/test-kit/core/fake-upstream';
import { createWorld, type World } from '@tutti/test-kit/core/server-world';

type Mode = 'legacy' | 'auto' | 'pin';

describe('SDK clients against the connector server', () => {
  let world: World;
  let server: ConnectorServer;
  let logLines: string[];
  const clients: { close(): Promise<void> }[] = [];

  beforeEach(async () => {
    world = createWorld();
    logLines = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    server = await createConnectorServer({
      registry: world.registry,
      tokens: world.tokens,
      logger: pino({ level: 'trace' }, sink),
      keepAliveMs: 0,
    });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await server.close();
    // No log line of the server ever holds the token.
    expect(logLines.join('')).not.toContain(world.token);
  });

  async function connectV1(token = world.token): Promise<ClientV1> {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new TransportV1(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  async function connectV2(mode: Mode, token = world.token): Promise<ClientV2> {
    const versionNegotiation =
      mode === 'legacy'
        ? undefined
        : { mode: mode === 'pin' ? { pin: '2026-07-28' } : ('auto' as const) };
    const client = new ClientV2(
      { name: 'sdk-v2', version: '1.0.0' },
      versionNegotiation ? { versionNegotiation } : {},
    );
    clients.push(client);
    await client.connect(
      new TransportV2(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  it('serves the SDK v1 client over MCP 2025: list and call tools of both connectors', async () => {
    const client = await connectV1();
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'gh_crash',
      'gh_fail',
      'gh_search',
      'gh_slow',
      'notes_add',
    ]);
    expect(await client.callTool({ name: 'gh_search', arguments: { query: 'v1' } })).toEqual({
      content: [{ type: 'text', text: 'found:v1' }],
      structuredContent: { hits: ['v1'] },
    });
    expect(
      (await client.callTool({ name: 'notes_add', arguments: { title: 'n' } })).content,
    ).toEqual([{ type: 'text', text: 'added:n:-' }]);
    expect((await client.callTool({ name: 'gh_fail', arguments: {} })).isError).toBe(true);
    await expect(client.callTool({ name: 'gh_crash', arguments: {} })).rejects.toThrow(
      /on upstream MCP server "gh" failed/,
    );
    await expect(client.callTool({ name: 'gh_gone', arguments: {} })).rejects.toThrow(/not served/);
  });

  it('refuses the SDK v1 and v2 clients with a wrong token', async () => {
    await expect(connectV1('wrong-token')).rejects.toThrow(/unknown or revoked/);
    await expect(connectV2('legacy', 'wrong-token')).rejects.toThrow(/unknown or revoked/);
    await expect(connectV2('auto', 'wrong-token')).rejects.toThrow();
  });

  it.each(['legacy', 'auto', 'pin'] as const)(
    'serves the SDK v2 client in %s mode',
    async (mode) => {
      const client = await connectV2(mode);
      expect(client.getNegotiatedProtocolVersion()).toBe(
        mode === 'legacy' ? '2025-06-18' : '2026-07-28',
      );
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('notes_add');
      // A non-ASCII value travels as a base64 Mcp-Param header on 2026-07-28.
      const added = await client.callTool({
        name: 'notes_add',
        arguments: { title: 'Grüße', priority: 3 },
      });
      expect(added.content).toEqual([{ type: 'text', text: 'added:Grüße:3' }]);
      const found = await client.callTool({ name: 'gh_search', arguments: { query: mode } });
      expect(found.structuredContent).toEqual({ hits: [mode] });
      expect((await client.callTool({ name: 'gh_fail', arguments: {} })).isError).toBe(true);
      await expect(client.callTool({ name: 'gh_crash', arguments: {} })).rejects.toThrow(
        /on upstream MCP server "gh" failed/,
      );
    },
  );

  it('delivers list_changed over subscriptions/listen and ends the stream when the token is revoked', async () => {
    const client = await connectV2('pin');
    let changed!: () => void;
    const listChanged = new Promise<void>((resolve) => {
      changed = resolve;
    });
    client.setNotificationHandler('notifications/tools/list_changed', () => changed());
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });

    const jira = createFakeUpstream([
      { tool: { name: 'find', inputSchema: { type: 'object' } }, run: async () => text('jira') },
    ]);
    world.registry.commit('jira', 1, jira, jira.tools);
    await listChanged;
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('jira_find');
    expect((await client.callTool({ name: 'jira_find', arguments: {} })).content).toEqual([
      { type: 'text', text: 'jira' },
    ]);

    world.tokens.revokeSession('ws-1', 'sess-1');
    expect(await subscription.closed).toBe('graceful');
  });

  it('ends open listen streams gracefully when the server closes', async () => {
    const client = await connectV2('auto');
    const subscription = await client.listen({ toolsListChanged: true });
    await server.close();
    expect(await subscription.closed).toBe('graceful');
  });
});
