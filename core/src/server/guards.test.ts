import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectorApp } from './connector-app.js';
import {
  createApp,
  createWorld,
  INJECT_PORT,
  legacyHeaders,
  type World,
} from '@tutti/test-kit/core/server-world';

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

describe('connector server guards', () => {
  let world: World;
  let server: ConnectorApp;

  afterEach(async () => {
    server.shutdown();
    await server.app.close();
  });

  function setup(options: { bodyLimit?: number } = {}) {
    world = createWorld();
    server = createApp(world, options);
    return server.app;
  }

  it('answers an authorized ping', async () => {
    const res = await setup().inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders(world.token),
      payload: ping,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it.each([
    ['a foreign name', `evil.example:${INJECT_PORT}`],
    ['another port', `127.0.0.1:${INJECT_PORT + 1}`],
    ['no port', 'localhost'],
    ['a LAN address', `192.168.1.10:${INJECT_PORT}`],
  ])('refuses a Host with %s with 403', async (_label, host) => {
    const res = await setup().inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: { ...legacyHeaders(world.token), host },
      payload: ping,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.data.code).toBe('TUTTI_ERR_SERVER_BAD_HOST');
  });

  it.each(['localhost', '[::1]', '127.0.0.1'])(
    'accepts the loopback Host %s with the port',
    async (name) => {
      const res = await setup().inject({
        method: 'POST',
        url: '/mcp/connector',
        headers: { ...legacyHeaders(world.token), host: `${name}:${INJECT_PORT}` },
        payload: ping,
      });
      expect(res.statusCode).toBe(200);
    },
  );

  it.each(['https://evil.example', 'http://127.0.0.1.evil.example:80', 'file://x', 'not a url'])(
    'refuses the Origin %s with 403',
    async (origin) => {
      const res = await setup().inject({
        method: 'POST',
        url: '/mcp/connector',
        headers: { ...legacyHeaders(world.token), origin },
        payload: ping,
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.data.code).toBe('TUTTI_ERR_SERVER_BAD_ORIGIN');
    },
  );

  it.each(['null', 'http://localhost:3000', 'http://127.0.0.1', 'https://[::1]:8443'])(
    'accepts the Origin %s',
    async (origin) => {
      const res = await setup().inject({
        method: 'POST',
        url: '/mcp/connector',
        headers: { ...legacyHeaders(world.token), origin },
        payload: ping,
      });
      expect(res.statusCode).toBe(200);
    },
  );

  it('answers 401 without a WWW-Authenticate challenge when the token is missing', async () => {
    const { authorization: _, ...headers } = legacyHeaders('unused');
    const res = await setup().inject({
      method: 'POST',
      url: '/mcp/connector',
      headers,
      payload: ping,
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.json().error.data.code).toBe('TUTTI_ERR_AUTH_MISSING_TOKEN');
  });

  it('answers 401 for an unknown token and never echoes it', async () => {
    const res = await setup().inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders('not-a-token-at-all'),
      payload: ping,
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.json().error.data.code).toBe('TUTTI_ERR_AUTH_INVALID_TOKEN');
    expect(res.body).not.toContain('not-a-token-at-all');
  });

  it('answers 401 for a revoked token', async () => {
    const app = setup();
    world.tokens.revokeSession('ws-1', 'sess-1');
    const res = await app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders(world.token),
      payload: ping,
    });
    expect(res.statusCode).toBe(401);
  });

  it('refuses a token at once when its session is revoked after it was served', async () => {
    const app = setup();
    const request = () =>
      app.inject({
        method: 'POST',
        url: '/mcp/connector',
        headers: legacyHeaders(world.token),
        payload: ping,
      });
    expect((await request()).statusCode).toBe(200);
    expect((await request()).statusCode).toBe(200);
    world.tokens.revokeSession('ws-1', 'sess-1');
    expect((await request()).statusCode).toBe(401);
  });

  it('refuses the old token and serves the new one after the session is issued again', async () => {
    const app = setup();
    const fresh = world.tokens.issue('ws-1', 'sess-1');
    const old = await app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders(world.token),
      payload: ping,
    });
    const renewed = await app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders(fresh),
      payload: ping,
    });
    expect(old.statusCode).toBe(401);
    expect(renewed.statusCode).toBe(200);
  });

  it.each(['GET', 'DELETE', 'PUT'] as const)(
    'answers %s on the endpoint with 405 and Allow: POST',
    async (method) => {
      const res = await setup().inject({
        method,
        url: '/mcp/connector',
        headers: legacyHeaders(world.token),
      });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.json().error.data.code).toBe('TUTTI_ERR_SERVER_METHOD_NOT_ALLOWED');
    },
  );

  it.each([
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-authorization-server/mcp/connector',
    '/register',
  ])('answers %s with a plain 404', async (url) => {
    const res = await setup().inject({
      method: 'GET',
      url,
      headers: { host: `127.0.0.1:${INJECT_PORT}` },
    });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.body).toBe('Not Found');
  });

  it('answers an oversize body with 413 before reading it', async () => {
    const res = await setup({ bodyLimit: 1024 }).inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders(world.token),
      payload: { ...ping, params: { pad: 'x'.repeat(2048) } },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.data.code).toBe('TUTTI_ERR_SERVER_BODY_TOO_LARGE');
  });

  it('answers malformed JSON with 400 and a JSON-RPC parse error', async () => {
    const res = await setup().inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders(world.token),
      payload: '{"jsonrpc":"2.0","id":1,',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: -32700,
      data: { code: 'TUTTI_ERR_SERVER_BAD_BODY' },
    });
  });

  it('answers a body that is not a JSON-RPC message with 400', async () => {
    const res = await setup().inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders(world.token),
      payload: { hello: 'world' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe(-32600);
  });

  it('checks the token before reading the body', async () => {
    const res = await setup().inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders('wrong'),
      payload: '{not json',
    });
    expect(res.statusCode).toBe(401);
  });
});
