/**
 * The connectors' instructions in the `connector` server's `initialize` (2025) and
 * `server/discover` (2026-07-28) results: absent without any, the registry's current text
 * otherwise, and built once per change of it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectorApp } from './connector-app.js';
import { perInstructions } from './instructions-member.js';
import {
  createApp,
  createWorld,
  legacyHeaders,
  modernRequest,
  type World,
} from '@tutti/test-kit/core/server-world';

describe('instructions of the connector server', () => {
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

  async function initialize() {
    const res = await server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: legacyHeaders(world.token),
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      },
    });
    expect(res.statusCode).toBe(200);
    return res.json().result;
  }

  async function discover() {
    const { headers, payload } = modernRequest(world.token, 1, 'server/discover');
    const res = await server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers,
      payload: payload as object,
    });
    expect(res.statusCode).toBe(200);
    return res.json().result;
  }

  it('leaves the member out of initialize and server/discover while no connector sent any', async () => {
    expect(await initialize()).not.toHaveProperty('instructions');
    expect(await discover()).not.toHaveProperty('instructions');
  });

  it("answers both with every connector's instructions, by key, and keeps the other members", async () => {
    world.registry.commit('notes', 2, world.notes, world.notes.tools, 'Titles are short.');
    world.registry.commit('gh', 2, world.gh, world.gh.tools, 'Search first.\nThen open one.');
    const text = 'gh: Search first.\n  Then open one.\nnotes: Titles are short.';
    expect(await initialize()).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'connector', title: 'Tutti connectors', version: '0.1.0' },
      instructions: text,
    });
    expect(await discover()).toMatchObject({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: true } },
      instructions: text,
      resultType: 'complete',
      ttlMs: 0,
    });
  });

  it("shows a connector's new generation's instructions to the next request, and drops a removed one's", async () => {
    world.registry.commit('gh', 2, world.gh, world.gh.tools, 'Old text.');
    world.registry.commit('notes', 2, world.notes, world.notes.tools, 'Notes text.');
    expect((await initialize()).instructions).toBe('gh: Old text.\nnotes: Notes text.');
    expect((await discover()).instructions).toBe('gh: Old text.\nnotes: Notes text.');

    world.registry.commit('gh', 3, world.gh, world.gh.tools, 'New text.');
    expect((await initialize()).instructions).toBe('gh: New text.\nnotes: Notes text.');
    expect((await discover()).instructions).toBe('gh: New text.\nnotes: Notes text.');

    world.registry.remove('notes', 2);
    expect((await initialize()).instructions).toBe('gh: New text.');
    world.registry.remove('gh', 3);
    expect(await discover()).not.toHaveProperty('instructions');
  });
});

describe('perInstructions', () => {
  it('builds once per change of the instructions, not per read', () => {
    const world = createWorld();
    const build = vi.fn((member: string) => `{${member.slice(1)}}`);
    const read = perInstructions(world.registry, build);
    expect(read()).toBe('{}');
    expect(read()).toBe('{}');
    expect(build).toHaveBeenCalledTimes(1);

    world.registry.commit('gh', 2, world.gh, world.gh.tools, 'Say "hi".');
    expect(JSON.parse(read())).toEqual({ instructions: 'gh: Say "hi".' });
    read();
    expect(build).toHaveBeenCalledTimes(2);

    // A new generation of the connector with the same text changes nothing.
    world.registry.commit('gh', 3, world.gh, world.gh.tools, 'Say "hi".');
    read();
    expect(build).toHaveBeenCalledTimes(2);
  });
});
