import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectorMCPRegistry } from '../registry/types.js';
import type { ConnectorApp } from './connector-app.js';
import {
  createApp,
  createWorld,
  legacyHeaders,
  type World,
} from '@tutti/test-kit/core/server-world';

describe('MCP 2025-06-18 surface', () => {
  let world: World;
  let server: ConnectorApp;

  beforeEach(() => {
    world = createWorld();
    server = createApp(world);
  });

  afterEach(async () => {
    server.shutdown();
    await server.app.close();
  });

  function post(payload: unknown, app = server.app, extra: Record<string, string> = {}) {
    return app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: { ...legacyHeaders(world.token), ...extra },
      payload: payload as object,
    });
  }

  function rpc(method: string, params?: unknown, id: number | string = 1) {
    return post({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  }

  const initParams = (protocolVersion: string) => ({
    protocolVersion,
    capabilities: {},
    clientInfo: { name: 'test', version: '1' },
  });

  it.each([
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2024-11-05', '2024-11-05'],
    ['2025-11-25', '2025-06-18'],
    ['1999-01-01', '2025-06-18'],
  ])('answers initialize for %s with %s and tools.listChanged false', async (asked, given) => {
    const res = await rpc('initialize', initParams(asked));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(res.json().result).toMatchObject({
      protocolVersion: given,
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'connector' },
    });
  });

  it('rejects initialize without a protocolVersion as invalid params', async () => {
    const res = await rpc('initialize', { capabilities: {} });
    expect(res.json().error.code).toBe(-32602);
  });

  it('accepts notifications/initialized and other notifications with 202 and no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe('');
    const other = await post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    expect(other.statusCode).toBe(202);
  });

  it('serves tools/list as the snapshot JSON, spliced in unchanged', async () => {
    const res = await rpc('tools/list');
    expect(res.body).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{"tools":${world.registry.snapshot().toolsJson}}}`,
    );
    expect(res.json().result.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'gh_crash',
      'gh_fail',
      'gh_search',
      'gh_slow',
      'notes_add',
    ]);
  });

  it('pages tools/list with the registry cursor', async () => {
    const paged = createApp(world, { pageSize: 2 });
    try {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await post(
          { jsonrpc: '2.0', id: 1, method: 'tools/list', params: cursor ? { cursor } : {} },
          paged.app,
        );
        const { result } = res.json();
        names.push(...result.tools.map((tool: { name: string }) => tool.name));
        cursor = result.nextCursor;
      } while (cursor);
      expect(names).toHaveLength(5);
      const bad = await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'nope' } },
        paged.app,
      );
      expect(bad.json().error).toMatchObject({
        code: -32602,
        data: { code: 'TUTTI_ERR_REGISTRY_BAD_CURSOR' },
      });
    } finally {
      await paged.app.close();
    }
  });

  it('answers as a single SSE event when the client accepts only text/event-stream', async () => {
    const res = await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, server.app, {
      accept: 'text/event-stream',
    });
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.body).toBe('event: message\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\n');
  });

  it('answers tools/list as a single SSE event too, with the same JSON as the plain answer', async () => {
    const json = await rpc('tools/list', {}, 4);
    const sse = await post(
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} },
      server.app,
      {
        accept: 'text/event-stream',
      },
    );
    expect(sse.headers['content-type']).toBe('text/event-stream');
    expect(sse.body).toBe(`event: message\ndata: ${json.body}\n\n`);
    expect(json.json().result.tools.length).toBeGreaterThan(0);
  });

  it('tells onAnswered the method and status of each request, plain or unusual, not of notifications', async () => {
    const seen: [string, string, number][] = [];
    const app = createApp(world, {
      onAnswered: (session, method, status) => seen.push([session.agentSessionId, method, status]),
    });
    try {
      await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, app.app);
      await post(
        { jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: { progressToken: 1 } } },
        app.app,
      );
      await post({ jsonrpc: '2.0', id: 3, method: 'nope' }, app.app);
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, app.app);
      expect(seen).toEqual([
        ['sess-1', 'ping', 200],
        ['sess-1', 'ping', 200],
        ['sess-1', 'nope', 200],
      ]);
    } finally {
      app.shutdown();
      await app.app.close();
    }
  });

  it('answers ping and empty resource lists', async () => {
    expect((await rpc('ping')).json().result).toEqual({});
    expect((await rpc('resources/list')).json().result).toEqual({ resources: [] });
    expect((await rpc('resources/templates/list')).json().result).toEqual({
      resourceTemplates: [],
    });
  });

  it('answers an unknown method with -32601', async () => {
    const res = await rpc('prompts/get', { name: 'x' }, 'abc');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: 'abc', error: { code: -32601 } });
  });

  it('refuses batches with 400, responses in them included', async () => {
    const batch = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(batch.statusCode).toBe(400);
    const responses = await post([{ jsonrpc: '2.0', id: 1, result: {} }]);
    expect(responses.statusCode).toBe(400);
    expect(responses.json().error.code).toBe(-32600);
  });

  it('takes a posted response with 202 and no body, even one that answers nothing', async () => {
    for (const response of [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 'tutti-e-1', error: { code: -32601, message: 'no' } },
      { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
    ]) {
      const res = await post(response);
      expect(res.statusCode).toBe(202);
      expect(res.body).toBe('');
    }
  });

  it('calls the upstream tool by its upstream name with the arguments unchanged', async () => {
    const args = { query: 'bug', extra: { nested: [1, 2] } };
    const res = await rpc('tools/call', { name: 'gh_search', arguments: args });
    expect(res.json().result).toEqual({
      content: [{ type: 'text', text: 'found:bug' }],
      structuredContent: { hits: ['bug'] },
    });
    expect(world.gh.calls.map((call) => [call.name, call.args])).toEqual([['search', args]]);
  });

  it('passes an upstream isError result through as a result', async () => {
    const res = await rpc('tools/call', { name: 'gh_fail', arguments: {} });
    expect(res.json().result).toEqual({
      content: [{ type: 'text', text: 'rate limited' }],
      isError: true,
    });
  });

  it('turns an upstream crash into a JSON-RPC error naming the connector and tool', async () => {
    const res = await rpc('tools/call', { name: 'gh_crash', arguments: {} });
    expect(res.statusCode).toBe(200);
    expect(res.json().error).toEqual({
      code: -32603,
      message:
        'The call of tool "crash" on upstream MCP server "gh" failed (upstream transport closed: socket hang up): call the tool again, and if it fails the same way, check the connector\'s state (tutti connector available); its server\'s stderr is shown by tuttid status and the dashboard.',
      data: { code: 'TUTTI_ERR_UPSTREAM_CALL_FAILED' },
    });
  });

  it('answers an unknown tool with a JSON-RPC error and calls nothing', async () => {
    const res = await rpc('tools/call', { name: 'gh_nothing', arguments: {} });
    expect(res.json().error).toMatchObject({
      code: -32602,
      data: { code: 'TUTTI_ERR_REGISTRY_UNKNOWN_TOOL' },
    });
    expect(world.gh.calls).toEqual([]);
  });

  it('rejects tools/call params without a name or with non-object arguments', async () => {
    expect((await rpc('tools/call', { arguments: {} })).json().error.code).toBe(-32602);
    expect((await rpc('tools/call', { name: 'gh_search', arguments: [1] })).json().error.code).toBe(
      -32602,
    );
  });

  it('answers a call whose route was fenced after resolution with an error, never a fallback', async () => {
    // The route is removed between resolve() and the call: the binding it returned is stale.
    const racing: ConnectorMCPRegistry = {
      ...world.registry,
      resolve(name) {
        const binding = world.registry.resolve(name);
        world.registry.remove('gh', 1);
        return binding;
      },
      snapshot: () => world.registry.snapshot(),
    };
    const fenced = createApp({ ...world, registry: racing });
    try {
      const res = await post(
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'gh_search', arguments: { query: 'x' } },
        },
        fenced.app,
      );
      expect(res.json().error).toMatchObject({
        code: -32602,
        data: { code: 'TUTTI_ERR_REGISTRY_ROUTE_FENCED' },
      });
      expect(world.gh.calls).toEqual([]);
    } finally {
      await fenced.app.close();
    }
  });
});
