/**
 * The streamed answer of `tools/call` on the wire, over a real socket: the frames a caller
 * gets, what a POSTed response answers (and what it never answers), and the plain JSON
 * answer of every call that has nothing to relay, unchanged.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ConnectorServer, createConnectorServer } from './connector-server.js';
import {
  askingUpstream,
  createFakeUpstream,
  type FakeUpstream,
  untilAborted,
} from '@tutti/test-kit/core/fake-upstream';
import { createWorld, type World } from '@tutti/test-kit/core/server-world';
import { type SseFrames, sseFrames } from '@tutti/test-kit/core/sse-frames';

const BOTH = 'application/json, text/event-stream';

describe('streamed tools/call answers', () => {
  let world: World;
  let asking: FakeUpstream;
  let server: ConnectorServer;
  let flaky: FakeUpstream;
  let other: string;

  beforeEach(async () => {
    world = createWorld();
    asking = askingUpstream();
    world.registry.commit('ask', 1, asking, asking.tools);
    flaky = createFakeUpstream([
      {
        tool: { name: 'halfway', inputSchema: { type: 'object' } },
        run: async (_args, _signal, options) => {
          options.onProgress?.({ progress: 1, total: 2 });
          throw new Error('upstream transport closed');
        },
      },
      {
        // Asks, and fails without waiting for the answer (an upstream that exits).
        tool: { name: 'asks_and_dies', inputSchema: { type: 'object' } },
        run: async (_args, _signal, options) => {
          void options.elicit?.({
            mode: 'form',
            message: 'Still there?',
            requestedSchema: { type: 'object', properties: {} },
          });
          await new Promise((resolve) => setImmediate(resolve));
          throw new Error('upstream transport closed');
        },
      },
      {
        tool: { name: 'hang', inputSchema: { type: 'object' } },
        run: async (_args, signal, options) => {
          options.onProgress?.({ progress: 0 });
          return untilAborted(signal, 'hang');
        },
      },
    ]);
    world.registry.commit('flaky', 1, flaky, flaky.tools);
    other = world.tokens.issue('ws-1', 'sess-2');
    server = await createConnectorServer({
      registry: world.registry,
      tokens: world.tokens,
      keepAliveMs: 0,
    });
  });

  afterEach(async () => {
    await server.close();
  });

  function post(body: unknown, token = world.token, accept = BOTH): Promise<Response> {
    return fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept,
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(body),
    });
  }

  async function initialize(capabilities: Record<string, unknown>, token = world.token) {
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities,
          clientInfo: { name: 't', version: '1' },
        },
      },
      token,
    );
    expect(res.status).toBe(200);
    await res.text();
  }

  const call = (name: string, id: number | string = 1, meta?: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {}, ...(meta && { _meta: meta }) },
  });

  async function streamOf(res: Response): Promise<SseFrames> {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    return sseFrames(res.body!);
  }

  async function question(frames: SseFrames): Promise<string> {
    const { message } = (await frames.next())!;
    expect(message).toMatchObject({ jsonrpc: '2.0', method: 'elicitation/create' });
    expect(message!.id).toMatch(/^tutti-e-\d+$/);
    return message!.id as string;
  }

  it('answers plain JSON, byte for byte as before, for every call with nothing to relay', async () => {
    const expected = `{"jsonrpc":"2.0","id":1,"result":${JSON.stringify({
      content: [{ type: 'text', text: 'found:x' }],
      structuredContent: { hits: ['x'] },
    })}}`;
    const search = {
      ...call('gh_search'),
      params: { name: 'gh_search', arguments: { query: 'x' } },
    };
    const before = await post(search);
    expect(before.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await before.text()).toBe(expected);
    // Declaring elicitation changes nothing for a call whose upstream asks nothing.
    await initialize({ elicitation: {} });
    const after = await post(search);
    expect(after.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await after.text()).toBe(expected);
  });

  it('withdraws a question its call no longer waits for, before the call’s answer', async () => {
    await initialize({ elicitation: {} });
    const frames = await streamOf(await post(call('flaky_asks_and_dies', 'd-1')));
    const id = await question(frames);
    expect((await frames.next())?.message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'the call ended' },
    });
    expect((await frames.next())?.message).toMatchObject({ jsonrpc: '2.0', id: 'd-1', error: {} });
    expect(await frames.next()).toBeUndefined();
    expect(server.elicitations.pendingFor('sess-1')).toEqual([]);
  });

  it('matches a POSTed response by token and id: another token’s POST answers nothing', async () => {
    await initialize({ elicitation: {} });
    await initialize({ elicitation: {} }, other);
    const frames = await streamOf(await post(call('ask_confirm', 'c-1')));
    const id = await question(frames);
    const foreign = await post(
      { jsonrpc: '2.0', id, result: { action: 'accept', content: { confirm: true } } },
      other,
    );
    expect(foreign.status).toBe(202);
    expect(await foreign.text()).toBe('');
    expect(server.elicitations.pendingFor('sess-1')).toHaveLength(1);
    const own = await post({ jsonrpc: '2.0', id, result: { action: 'decline' } });
    expect(own.status).toBe(202);
    expect((await frames.next())?.message).toMatchObject({
      jsonrpc: '2.0',
      id: 'c-1',
      result: { content: [{ type: 'text', text: 'deleted:false' }] },
    });
    expect(await frames.next()).toBeUndefined();
    // A second answer to the same question lands nowhere.
    expect((await post({ jsonrpc: '2.0', id, result: { action: 'accept' } })).status).toBe(202);
  });

  it.each([
    ['an unknown action', { result: { action: 'maybe' } }],
    ['nested content', { result: { action: 'accept', content: { confirm: { yes: true } } } }],
    [
      'too many members',
      {
        result: {
          action: 'accept',
          content: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, true])),
        },
      },
    ],
    ['a huge string', { result: { action: 'accept', content: { confirm: 'y'.repeat(40_000) } } }],
    ['an error response', { error: { code: -32601, message: 'Method not found' } }],
  ])('answers the upstream cancel for %s', async (_what, answer) => {
    await initialize({ elicitation: { form: {} } });
    const frames = await streamOf(await post(call('ask_confirm')));
    const id = await question(frames);
    expect((await post({ jsonrpc: '2.0', id, ...answer })).status).toBe(202);
    expect((await frames.next())?.message).toMatchObject({
      id: 1,
      result: { structuredContent: { action: 'cancel' } },
    });
  });

  it('ignores responses for unknown ids with a 202 and refuses them in a batch', async () => {
    await initialize({ elicitation: {} });
    for (const id of ['tutti-e-999', 7, 'x'.repeat(10_000)]) {
      const res = await post({ jsonrpc: '2.0', id, result: { action: 'accept' } });
      expect(res.status).toBe(202);
      expect(await res.text()).toBe('');
    }
    const batch = await post([{ jsonrpc: '2.0', id: 'tutti-e-1', result: { action: 'accept' } }]);
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it('relays nothing to a caller whose Accept does not take SSE: its upstream is answered cancel', async () => {
    await initialize({ elicitation: {} });
    const res = await post(call('ask_confirm'), world.token, 'application/json');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(
      ((await res.json()) as { result: { structuredContent: unknown } }).result.structuredContent,
    ).toEqual({ action: 'cancel' });
    expect(asking.calls[0]!.canElicit).toBe(false);
  });

  it('forgets the capability when a later initialize declares none', async () => {
    await initialize({ elicitation: {} });
    await initialize({});
    const res = await post(call('ask_confirm'));
    expect(
      ((await res.json()) as { result: { structuredContent: unknown } }).result.structuredContent,
    ).toEqual({ action: 'cancel' });
  });

  it('writes an error after the stream started as the last event', async () => {
    const frames = await streamOf(await post(call('flaky_halfway', 5, { progressToken: 'p' })));
    expect((await frames.next())?.message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'p', progress: 1, total: 2 },
    });
    expect((await frames.next())?.message).toMatchObject({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32603, data: { code: 'TUTTI_ERR_UPSTREAM_CALL_FAILED' } },
    });
    expect(await frames.next()).toBeUndefined();
  });

  it('cancels the call when the client closes the stream', async () => {
    const frames = await streamOf(await post(call('flaky_hang', 6, { progressToken: 9 })));
    expect((await frames.next())?.message).toMatchObject({ params: { progressToken: 9 } });
    const { signal } = await flaky.called('hang');
    await frames.cancel();
    await vi.waitFor(() => expect(signal.aborted).toBe(true));
  });

  it('answers a pending question cancel and tells the agent when its token is revoked', async () => {
    await initialize({ elicitation: {} });
    const frames = await streamOf(await post(call('ask_confirm')));
    const id = await question(frames);
    world.tokens.revokeSession('ws-1', 'sess-1');
    expect((await frames.next())?.message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'token revoked' },
    });
    expect((await frames.next())?.message).toMatchObject({
      result: { structuredContent: { action: 'cancel' } },
    });
    expect(server.elicitations.size).toBe(0);
  });

  it('answers the upstream cancel when the caller closes the stream while the person thinks', async () => {
    await initialize({ elicitation: {} });
    const frames = await streamOf(await post(call('ask_confirm')));
    await question(frames);
    expect(server.elicitations.size).toBe(1);
    await frames.cancel();
    await vi.waitFor(() => expect(server.elicitations.size).toBe(0));
    expect(asking.calls[0]!.signal.aborted).toBe(true);
  });
});
