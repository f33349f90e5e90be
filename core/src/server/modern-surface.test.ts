import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectorApp } from './connector-app.js';
import {
  createApp,
  createWorld,
  ENVELOPE,
  legacyHeaders,
  modernRequest,
  type World,
} from '@tutti/test-kit/core/server-world';

const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

describe('MCP 2026-07-28 surface', () => {
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

  function send(
    method: string,
    params: Record<string, unknown> = {},
    extraHeaders: Record<string, string> = {},
    id: number | string = 1,
  ) {
    const { headers, payload } = modernRequest(world.token, id, method, params, extraHeaders);
    return server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers,
      payload: payload as object,
    });
  }

  it('answers server/discover with the modern version, listChanged tools and cache hints', async () => {
    const res = await send('server/discover');
    expect(res.statusCode).toBe(200);
    expect(res.json().result).toEqual({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: true } },
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: {
        [SERVER_INFO_KEY]: { name: 'connector', title: 'Tutti connectors', version: '0.1.0' },
      },
    });
  });

  it('serves tools/list from the snapshot JSON with resultType and cache hints', async () => {
    const res = await send('tools/list');
    expect(
      res.body.startsWith(
        `{"jsonrpc":"2.0","id":1,"result":{"tools":${world.registry.snapshot().toolsJson},`,
      ),
    ).toBe(true);
    expect(res.json().result).toMatchObject({
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
    });
  });

  it.each([
    ['prompts/list', 'prompts'],
    ['resources/list', 'resources'],
    ['resources/templates/list', 'resourceTemplates'],
  ])('answers %s with an empty list and cache hints', async (method, key) => {
    const res = await send(method);
    expect(res.json().result).toMatchObject({
      [key]: [],
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
    });
  });

  it('calls a tool and adds resultType and server info to the upstream result', async () => {
    const res = await send('tools/call', { name: 'gh_search', arguments: { query: 'q' } });
    expect(res.json().result).toEqual({
      content: [{ type: 'text', text: 'found:q' }],
      structuredContent: { hits: ['q'] },
      resultType: 'complete',
      _meta: { [SERVER_INFO_KEY]: expect.objectContaining({ name: 'connector' }) },
    });
  });

  it('answers an unknown method, ping and initialize with -32601 on HTTP 404', async () => {
    for (const method of ['foo/bar', 'ping', 'initialize']) {
      const res = await send(method);
      expect(res.statusCode, method).toBe(404);
      expect(res.json().error.code, method).toBe(-32601);
    }
  });

  it('rejects an Mcp-Method header that disagrees with the body with -32020 on 400', async () => {
    const res = await send('tools/list', {}, { 'mcp-method': 'tools/call' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe(-32020);
  });

  it('rejects a protocol version header that disagrees with the envelope with -32020', async () => {
    const res = await send('tools/list', {}, { 'mcp-protocol-version': '2025-06-18' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe(-32020);
  });

  it('rejects a request without the MCP-Protocol-Version or Mcp-Method header with -32020', async () => {
    for (const missing of ['mcp-protocol-version', 'mcp-method']) {
      const { headers, payload } = modernRequest(world.token, 1, 'tools/list');
      delete headers[missing];
      const res = await server.app.inject({
        method: 'POST',
        url: '/mcp/connector',
        headers,
        payload: payload as object,
      });
      expect(res.statusCode, missing).toBe(400);
      expect(res.json().error.code, missing).toBe(-32020);
    }
  });

  it('rejects a tools/call whose Mcp-Name is missing or names another tool', async () => {
    const { headers, payload } = modernRequest(world.token, 1, 'tools/call', {
      name: 'gh_search',
      arguments: { query: 'q' },
    });
    delete headers['mcp-name'];
    const missing = await server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers,
      payload: payload as object,
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.code).toBe(-32020);
    const other = await send(
      'tools/call',
      { name: 'gh_search', arguments: { query: 'q' } },
      { 'mcp-name': 'gh_fail' },
    );
    expect(other.json().error.code).toBe(-32020);
    expect(world.gh.calls).toEqual([]);
  });

  it('accepts Mcp-Name and Mcp-Param values in the base64 form', async () => {
    const title = 'Grüße';
    const b64 = (value: string) => `=?base64?${Buffer.from(value).toString('base64')}?=`;
    const res = await send(
      'tools/call',
      { name: 'notes_add', arguments: { title, priority: 2 } },
      { 'mcp-name': b64('notes_add'), 'mcp-param-title': b64(title), 'mcp-param-priority': '2.0' },
    );
    expect(res.json().result.content).toEqual([{ type: 'text', text: 'added:Grüße:2' }]);
  });

  it('rejects a tools/call missing a declared Mcp-Param header and never calls upstream', async () => {
    const res = await send(
      'tools/call',
      { name: 'notes_add', arguments: { title: 'a', priority: 1 } },
      { 'mcp-param-title': 'a' },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: -32020,
      data: { mismatch: { header: 'Mcp-Param-Priority' } },
    });
    expect(world.notes.calls).toEqual([]);
  });

  it('rejects an Mcp-Param header that disagrees with the argument or is broken base64', async () => {
    const wrong = await send(
      'tools/call',
      { name: 'notes_add', arguments: { title: 'a' } },
      { 'mcp-param-title': 'b' },
    );
    expect(wrong.json().error.code).toBe(-32020);
    const broken = await send(
      'tools/call',
      { name: 'notes_add', arguments: { title: 'a' } },
      { 'mcp-param-title': '=?base64?###?=' },
    );
    expect(broken.json().error.code).toBe(-32020);
  });

  it('needs no Mcp-Param header for an argument the call leaves out', async () => {
    const res = await send(
      'tools/call',
      { name: 'notes_add', arguments: { title: 'a' } },
      { 'mcp-param-title': 'a' },
    );
    expect(res.json().result.content).toEqual([{ type: 'text', text: 'added:a:-' }]);
  });

  it('answers an unsupported envelope version with -32022 naming the supported one', async () => {
    const { headers } = modernRequest(world.token, 1, 'tools/list');
    const res = await server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: { ...headers, 'mcp-protocol-version': '2027-01-01' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: -32022,
      data: { supported: ['2026-07-28'], requested: '2027-01-01' },
    });
  });

  it('rejects a malformed envelope and a modern header without an envelope with -32602 on 400', async () => {
    const { headers } = modernRequest(world.token, 1, 'tools/list');
    const malformed = await server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers,
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      },
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.code).toBe(-32602);
    const bare = await server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers,
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().error.code).toBe(-32602);
  });

  it('rejects subscriptions/listen without a notifications filter in-band', async () => {
    const res = await send('subscriptions/listen');
    expect(res.statusCode).toBe(200);
    expect(res.json().error.code).toBe(-32602);
  });

  it('answers a request on the structural fast path as the SDK-classified path does', async () => {
    // The null in a foreign envelope key keeps the second request on the SDK path.
    const slowMeta = { ...ENVELOPE, 'example.com/trace': null };
    for (const [method, params] of [
      ['tools/call', { name: 'gh_search', arguments: { query: 'bug' } }],
      ['tools/list', {}],
    ] as const) {
      const fast = await send(method, params);
      const { headers, payload } = modernRequest(world.token, 1, method, params);
      const body = payload as { params: Record<string, unknown> };
      const slow = await server.app.inject({
        method: 'POST',
        url: '/mcp/connector',
        headers,
        payload: { ...body, params: { ...body.params, _meta: slowMeta } },
      });
      expect(fast.statusCode).toBe(200);
      expect(slow.statusCode).toBe(fast.statusCode);
      expect(slow.body).toBe(fast.body);
    }
  });

  it('tells onAnswered the method and status of 2026-07-28 requests', async () => {
    const seen: [string, number][] = [];
    server.shutdown();
    await server.app.close();
    server = createApp(world, {
      onAnswered: (_session, method, status) => seen.push([method, status]),
    });
    await send('tools/list');
    await send('tools/call', { name: 'gh_search', arguments: { query: 'bug' } });
    await send('tools/call', { name: 'gh_search' }, { 'mcp-name': 'other' });
    expect(seen).toEqual([
      ['tools/list', 200],
      ['tools/call', 200],
      ['tools/call', 400],
    ]);
  });

  it('accepts a modern notification with 202', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: { ...legacyHeaders(world.token), 'mcp-protocol-version': '2026-07-28' },
      payload: {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 9, _meta: ENVELOPE },
      },
    });
    expect(res.statusCode).toBe(202);
  });
});
