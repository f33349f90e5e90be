/** The raw SSE frames of `subscriptions/listen` over a real socket. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectorMCPRegistry } from '../registry/types.js';
import { type ConnectorServer, createConnectorServer } from './connector-server.js';
import { createFakeUpstream, text } from '@tutti/test-kit/core/fake-upstream';
import { createWorld, ENVELOPE, type World } from '@tutti/test-kit/core/server-world';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Reads SSE frames (`data:` messages and `:` comments) one at a time. */
function frames(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    /** The next frame, or undefined at the end of the stream. */
    async next(): Promise<{ comment?: string; message?: Record<string, unknown> } | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (raw.startsWith(':')) return { comment: raw.slice(1).trim() };
          const data = raw.split('\n').find((line) => line.startsWith('data: '));
          return { message: JSON.parse(data!.slice(6)) };
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

describe('subscriptions/listen streams', () => {
  let world: World;
  let server: ConnectorServer;

  beforeEach(() => {
    world = createWorld();
  });

  afterEach(async () => {
    await server.close();
  });

  async function listen(notifications: Record<string, unknown>, id: string | number = 'listen-1') {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${world.token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: { notifications, _meta: ENVELOPE },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    return frames(res.body!);
  }

  it('acknowledges first, sends list_changed on a change and the listen result on revoke', async () => {
    server = await createConnectorServer({
      registry: world.registry,
      tokens: world.tokens,
      keepAliveMs: 0,
    });
    const stream = await listen({ toolsListChanged: true, resourcesListChanged: true });
    expect((await stream.next())?.message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true },
        _meta: { [SUBSCRIPTION_ID]: 'listen-1' },
      },
    });
    const jira = createFakeUpstream([
      { tool: { name: 'find', inputSchema: { type: 'object' } }, run: async () => text('x') },
    ]);
    world.registry.commit('jira', 1, jira, jira.tools);
    expect((await stream.next())?.message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
    });
    world.tokens.revokeAll();
    expect((await stream.next())?.message).toMatchObject({
      jsonrpc: '2.0',
      id: 'listen-1',
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
    });
    expect(await stream.next()).toBeUndefined();
  });

  it('keeps the stream alive with SSE comments', async () => {
    server = await createConnectorServer({
      registry: world.registry,
      tokens: world.tokens,
      keepAliveMs: 5,
    });
    const stream = await listen({ toolsListChanged: true });
    expect((await stream.next())?.message?.method).toBe('notifications/subscriptions/acknowledged');
    expect(await stream.next()).toEqual({ comment: 'keep-alive' });
    await stream.cancel();
  });

  it('completes at once a subscription that asks for nothing this server sends', async () => {
    server = await createConnectorServer({
      registry: world.registry,
      tokens: world.tokens,
      keepAliveMs: 0,
    });
    const stream = await listen({ promptsListChanged: true }, 4);
    expect((await stream.next())?.message).toMatchObject({ params: { notifications: {} } });
    expect((await stream.next())?.message).toMatchObject({
      id: 4,
      result: { resultType: 'complete' },
    });
    expect(await stream.next()).toBeUndefined();
  });

  it('refuses one stream over the per-token limit with 429, and takes it once one closes', async () => {
    server = await createConnectorServer({
      registry: world.registry,
      tokens: world.tokens,
      keepAliveMs: 0,
      maxListenStreamsPerToken: 2,
    });
    const raw = (token: string, id: number) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'subscriptions/listen',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'subscriptions/listen',
          params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE },
        }),
      });
    const first = await listen({ toolsListChanged: true }, 1);
    const second = await listen({ toolsListChanged: true }, 2);
    const third = await raw(world.token, 3);
    expect(third.status).toBe(429);
    expect(await third.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32000,
        message:
          'This agent session already holds 2 open subscriptions/listen streams on the connector server: close one before opening another (one per client is enough).',
        data: { code: 'TUTTI_ERR_SERVER_TOO_MANY_STREAMS' },
      },
    });
    // Another session's token has its own allowance.
    const other = await raw(world.tokens.issue('ws-1', 'sess-2'), 4);
    expect(other.status).toBe(200);
    await other.body?.cancel();
    // The streams that were open still serve.
    await first.next();
    world.registry.remove('notes', 1);
    expect((await first.next())?.message?.method).toBe('notifications/tools/list_changed');
    await second.cancel();
    await vi.waitFor(async () => {
      const again = await raw(world.token, 5);
      await again.body?.cancel();
      expect(again.status).toBe(200);
    });
    await first.cancel();
  });

  it('stops listening to the registry when the client goes away', async () => {
    let listeners = 0;
    const counting: ConnectorMCPRegistry = {
      ...world.registry,
      snapshot: () => world.registry.snapshot(),
      onListChanged(listener) {
        listeners += 1;
        const off = world.registry.onListChanged(listener);
        return () => {
          listeners -= 1;
          off();
        };
      },
    };
    server = await createConnectorServer({
      registry: counting,
      tokens: world.tokens,
      keepAliveMs: 0,
    });
    const stream = await listen({ toolsListChanged: true });
    await stream.next();
    expect(listeners).toBe(1);
    await stream.cancel();
    await vi.waitFor(() => expect(listeners).toBe(0));
  });
});
