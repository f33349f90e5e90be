/**
 * Arguments nested too deep are the caller's error: the server answers -32602 itself, the
 * upstream is never called, and nothing is counted against the connector.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectorApp, ConnectorServerOptions } from './connector-app.js';
import { DEFAULT_MAX_ARGUMENT_DEPTH } from './constants.js';
import {
  createApp,
  createWorld,
  legacyHeaders,
  modernRequest,
  type World,
} from '@tutti/test-kit/core/server-world';

/** JSON text of an object nested `depth` levels deep (level 1: the object itself). */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{"query":"deep"}${'}'.repeat(depth - 1)}`;
}

describe('tools/call argument depth', () => {
  let world: World;
  let server: ConnectorApp;

  afterEach(async () => {
    server.shutdown();
    await server.app.close();
  });

  function setup(options: Partial<ConnectorServerOptions> = {}) {
    world = createWorld();
    server = createApp(world, options);
  }

  function legacyCall(argumentsJson: string) {
    return server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders(world.token),
      payload: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"gh_search","arguments":${argumentsJson}}}`,
    });
  }

  it('answers arguments nested 5,000 levels deep with -32602 and never calls the upstream', async () => {
    setup();
    const res = await legacyCall(nested(5_000));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: {
        code: -32602,
        message: `The arguments of tool "gh_search" are nested deeper than ${DEFAULT_MAX_ARGUMENT_DEPTH} levels of objects and arrays, so the call was refused without reaching the connector: send flatter arguments.`,
        data: { code: 'TUTTI_ERR_SERVER_ARGUMENTS_TOO_DEEP' },
      },
    });
    expect(world.gh.calls).toEqual([]);
  });

  it('counts arrays as levels too', async () => {
    setup({ maxArgumentDepth: 3 });
    const res = await legacyCall('{"list":[[{"x":1}]]}');
    expect(res.json().error.data.code).toBe('TUTTI_ERR_SERVER_ARGUMENTS_TOO_DEEP');
    expect((await legacyCall('{"list":[[1]]}')).json().result).toBeDefined();
    expect(world.gh.calls).toHaveLength(1);
  });

  it('passes arguments exactly at the limit through unchanged', async () => {
    setup();
    const res = await legacyCall(nested(DEFAULT_MAX_ARGUMENT_DEPTH));
    expect(res.json().result.structuredContent).toBeDefined();
    expect(world.gh.calls).toHaveLength(1);
    expect(JSON.stringify(world.gh.calls[0]!.args)).toBe(nested(DEFAULT_MAX_ARGUMENT_DEPTH));
  });

  it('takes the limit from the server options', async () => {
    setup({ maxArgumentDepth: 2 });
    expect((await legacyCall(nested(2))).json().result).toBeDefined();
    const res = await legacyCall(nested(3));
    expect(res.json().error.message).toContain('deeper than 2 levels');
  });

  it('refuses the same arguments on the 2026-07-28 surface before any upstream call', async () => {
    setup();
    const { headers } = modernRequest(world.token, 4, 'tools/call', { name: 'gh_search' });
    const envelope = JSON.stringify(
      (modernRequest(world.token, 4, 'tools/call').payload as { params: { _meta: unknown } }).params
        ._meta,
    );
    const res = await server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers,
      payload: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"gh_search","arguments":${nested(5_000)},"_meta":${envelope}}}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().error).toMatchObject({
      code: -32602,
      data: { code: 'TUTTI_ERR_SERVER_ARGUMENTS_TOO_DEEP' },
    });
    expect(world.gh.calls).toEqual([]);
  });
});
