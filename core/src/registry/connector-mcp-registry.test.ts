import { describe, expect, it, vi } from 'vitest';
import type { UpstreamClient, UpstreamTool } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { createConnectorMCPRegistry } from './connector-mcp-registry.js';

/** An upstream client handle; the registry only stores it and hands it out. */
function client(label: string): UpstreamClient {
  return {
    callTool: async (name) => ({ content: [{ type: 'text', text: `${label}:${name}` }] }),
  };
}

function tool(name: string, extra: Partial<UpstreamTool> = {}): UpstreamTool {
  return { name, description: `does ${name}`, inputSchema: { type: 'object' }, ...extra };
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof TuttiError ? error.code : `not a TuttiError: ${String(error)}`;
  }
  return undefined;
}

describe('commit', () => {
  it('serves a committed tool set under <key>_<tool> names, sorted by local name', () => {
    const registry = createConnectorMCPRegistry();
    const result = registry.commit('gh', 1, client('gh'), [tool('search'), tool('Issue.get')]);
    expect(result).toEqual({
      connectorKey: 'gh',
      generation: 1,
      localNames: ['gh_Issue_get', 'gh_search'],
      listChanged: true,
    });
    expect(registry.snapshot().tools.map((t) => t.name)).toEqual(['gh_Issue_get', 'gh_search']);
  });

  it('serves the upstream definition with only the name replaced', () => {
    const registry = createConnectorMCPRegistry();
    const upstream: UpstreamTool = {
      name: 'query',
      title: 'Query',
      description: 'Runs a query',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      outputSchema: { type: 'object', properties: { rows: { type: 'array' } } },
      annotations: { readOnlyHint: true },
      _meta: { 'example.com/x': 1 },
    };
    registry.commit('db', 1, client('db'), [upstream]);
    expect(registry.snapshot().tools).toEqual([{ ...upstream, name: 'db_query' }]);
    expect(JSON.parse(registry.snapshot().toolsJson)).toEqual([{ ...upstream, name: 'db_query' }]);
  });

  it('passes other upstream fields such as icons through, after the known ones, sorted', () => {
    const registry = createConnectorMCPRegistry();
    const upstream = JSON.parse(
      '{"zeta":1,"icons":[{"src":"data:,"}],"__proto__":{"polluted":true},"name":"a","inputSchema":{"type":"object"}}',
    ) as UpstreamTool;
    registry.commit('k', 1, client('k'), [upstream]);
    expect(registry.snapshot().toolsJson).toBe(
      '[{"name":"k_a","inputSchema":{"type":"object"},"icons":[{"src":"data:,"}],"zeta":1}]',
    );
    expect(Object.getPrototypeOf(registry.snapshot().tools[0])).toBe(Object.prototype);
  });

  it('keeps the served tools unchanged when the caller mutates its tool objects later', () => {
    const registry = createConnectorMCPRegistry();
    const upstream = tool('a', { inputSchema: { type: 'object', properties: {} } });
    registry.commit('k', 1, client('k'), [upstream]);
    upstream.description = 'changed';
    (upstream.inputSchema as { properties: Record<string, unknown> }).properties.x = {};
    expect(registry.snapshot().tools[0]).toEqual({
      name: 'k_a',
      description: 'does a',
      inputSchema: { type: 'object', properties: {} },
    });
    expect(Object.isFrozen(registry.snapshot().tools[0]?.inputSchema)).toBe(true);
  });

  it('replaces the whole tool set of a connector at a newer generation', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('gh', 1, client('old'), [tool('a'), tool('b')]);
    const newClient = client('new');
    registry.commit('gh', 2, newClient, [tool('b'), tool('c')]);
    expect(registry.resolve('gh_a')).toBeUndefined();
    expect(registry.resolve('gh_b')?.client).toBe(newClient);
    expect(registry.resolve('gh_c')?.generation).toBe(2);
  });

  it('rejects a generation at or below the fence and keeps the old route serving', () => {
    const registry = createConnectorMCPRegistry();
    const oldClient = client('old');
    registry.commit('gh', 5, oldClient, [tool('a')]);
    const before = registry.snapshot();
    expect(code(() => registry.commit('gh', 5, client('x'), [tool('z')]))).toBe(
      'TUTTI_ERR_REGISTRY_STALE_GENERATION',
    );
    expect(code(() => registry.commit('gh', 4, client('x'), [tool('z')]))).toBe(
      'TUTTI_ERR_REGISTRY_STALE_GENERATION',
    );
    expect(registry.snapshot()).toBe(before);
    expect(registry.resolve('gh_a')?.client).toBe(oldClient);
  });

  it('keeps the old generation when the new tool set has an invalid schema', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('gh', 1, client('old'), [tool('a')]);
    const before = registry.snapshot();
    const bad = [tool('a'), tool('b', { inputSchema: { type: 'string' } })];
    expect(() => registry.commit('gh', 2, client('new'), bad)).toThrow(
      /Connector "gh" tool "b" has an inputSchema/,
    );
    expect(registry.snapshot()).toBe(before);
    expect(registry.resolve('gh_a')?.generation).toBe(1);
    expect(registry.resolve('gh_a')?.isCurrent()).toBe(true);
    expect(registry.debugSnapshot().routes[0]?.fence).toBe(1);
    // A rejected generation does not use up the generation number.
    expect(registry.commit('gh', 2, client('new'), [tool('a')]).generation).toBe(2);
  });

  it('rejects a collision after canonicalization, naming both upstream tools', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('fs', 1, client('old'), [tool('read')]);
    expect(() => registry.commit('fs', 2, client('new'), [tool('a.b'), tool('a b')])).toThrow(
      'Connector "fs" tools "a b" and "a.b" both map to the local name "fs_a_b"',
    );
    expect(registry.resolve('fs_read')?.generation).toBe(1);
    expect(registry.resolve('fs_a_b')).toBeUndefined();
  });

  it('rejects empty, non-string and repeated tool names as invalid tools', () => {
    const registry = createConnectorMCPRegistry();
    const invalid: unknown[][] = [
      [tool('')],
      [{ ...tool('x'), name: 7 }],
      [{ inputSchema: { type: 'object' } }],
      [tool('a'), tool('a')],
      [null],
      [tool('a', { description: 5 as unknown as string })],
      [tool('a', { annotations: [] as unknown as Record<string, unknown> })],
    ];
    for (const tools of invalid) {
      expect(
        code(() => registry.commit('k', 1, client('k'), tools as UpstreamTool[])),
        JSON.stringify(tools),
      ).toBe('TUTTI_ERR_REGISTRY_INVALID_TOOL');
    }
    expect(registry.snapshot().version).toBe(0);
  });

  it('rejects an invalid key or generation before looking at the tools', () => {
    const registry = createConnectorMCPRegistry();
    expect(code(() => registry.commit('Git_Hub', 1, client('k'), []))).toBe(
      'TUTTI_ERR_REGISTRY_INVALID_KEY',
    );
    for (const generation of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(code(() => registry.commit('k', generation, client('k'), []))).toBe(
        'TUTTI_ERR_REGISTRY_INVALID_GENERATION',
      );
    }
  });

  it('shortens over-long names within 48 characters and maps them back exactly', () => {
    const registry = createConnectorMCPRegistry();
    const longName = `list_all_the_repositories_of_an_organization_with.filters`;
    const [localName] = registry.commit('github', 1, client('gh'), [tool(longName)]).localNames;
    expect(localName).toHaveLength(48);
    expect(registry.resolve(localName!)?.upstreamName).toBe(longName);
  });
});

describe('resolve', () => {
  it('returns a frozen binding with key, generation, names and client', async () => {
    const registry = createConnectorMCPRegistry();
    const gh = client('gh');
    registry.commit('gh', 3, gh, [tool('search.code')]);
    const binding = registry.resolve('gh_search_code');
    expect(binding).toMatchObject({
      connectorKey: 'gh',
      generation: 3,
      localName: 'gh_search_code',
      upstreamName: 'search.code',
      client: gh,
    });
    expect(Object.isFrozen(binding)).toBe(true);
    await expect(binding!.client.callTool(binding!.upstreamName, {})).resolves.toEqual({
      content: [{ type: 'text', text: 'gh:search.code' }],
    });
  });

  it('tells an in-flight binding that its generation was replaced', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('gh', 1, client('old'), [tool('a')]);
    const inFlight = registry.resolve('gh_a')!;
    registry.commit('gh', 2, client('new'), [tool('a')]);
    expect(inFlight.isCurrent()).toBe(false);
    expect(inFlight.generation).toBe(1);
    expect(registry.resolve('gh_a')?.isCurrent()).toBe(true);
  });

  it('returns undefined for an unknown name and for a prefix-looking name of no route', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('gh', 1, client('gh'), [tool('a')]);
    expect(registry.resolve('gh_b')).toBeUndefined();
    expect(registry.resolve('other_a')).toBeUndefined();
    expect(registry.resolve('__proto__')).toBeUndefined();
  });
});

describe('remove', () => {
  it('removes the route at its generation and fences it for good', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('gh', 2, client('gh'), [tool('a')]);
    const binding = registry.resolve('gh_a')!;
    expect(registry.remove('gh', 2)).toBe(true);
    expect(registry.resolve('gh_a')).toBeUndefined();
    expect(binding.isCurrent()).toBe(false);
    expect(registry.snapshot().tools).toEqual([]);
    expect(code(() => registry.commit('gh', 2, client('gh'), [tool('a')]))).toBe(
      'TUTTI_ERR_REGISTRY_STALE_GENERATION',
    );
    expect(registry.debugSnapshot().fences).toEqual([{ connectorKey: 'gh', fence: 2 }]);
    expect(registry.commit('gh', 3, client('gh'), [tool('a')]).listChanged).toBe(true);
  });

  it('keeps a newer route when asked to remove an older generation', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('gh', 5, client('gh'), [tool('a')]);
    expect(registry.remove('gh', 4)).toBe(false);
    expect(registry.resolve('gh_a')?.isCurrent()).toBe(true);
    expect(registry.debugSnapshot().routes[0]?.fence).toBe(5);
  });

  it('fences a key that has no route, so that generation can never be committed', () => {
    const registry = createConnectorMCPRegistry();
    expect(registry.remove('late', 7)).toBe(false);
    expect(code(() => registry.commit('late', 7, client('l'), [tool('a')]))).toBe(
      'TUTTI_ERR_REGISTRY_STALE_GENERATION',
    );
    expect(registry.commit('late', 8, client('l'), [tool('a')]).generation).toBe(8);
  });

  it('removes a route when fenced at a generation above it', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('gh', 1, client('gh'), [tool('a')]);
    expect(registry.remove('gh', 9)).toBe(true);
    expect(code(() => registry.commit('gh', 9, client('gh'), []))).toBe(
      'TUTTI_ERR_REGISTRY_STALE_GENERATION',
    );
  });
});

describe('list-changed', () => {
  it('fires once per visible change with the new snapshot', () => {
    const registry = createConnectorMCPRegistry();
    const seen: number[] = [];
    registry.onListChanged((snapshot) => seen.push(snapshot.version));
    registry.commit('a', 1, client('a'), [tool('x')]);
    registry.commit('b', 1, client('b'), [tool('y')]);
    registry.remove('a', 1);
    expect(seen).toEqual([1, 2, 3]);
    expect(registry.snapshot().version).toBe(3);
  });

  it('does not fire when the same tools are committed at a new generation', () => {
    const registry = createConnectorMCPRegistry();
    const listener = vi.fn();
    registry.commit('gh', 1, client('old'), [tool('a'), tool('b')]);
    const before = registry.snapshot();
    registry.onListChanged(listener);
    const result = registry.commit('gh', 2, client('new'), [tool('b'), tool('a')]);
    expect(result.listChanged).toBe(false);
    expect(listener).not.toHaveBeenCalled();
    expect(registry.snapshot()).toBe(before);
    expect(registry.resolve('gh_a')?.generation).toBe(2);
  });

  it('fires when only a description or schema changed', () => {
    const registry = createConnectorMCPRegistry();
    const listener = vi.fn();
    registry.commit('gh', 1, client('gh'), [tool('a')]);
    registry.onListChanged(listener);
    registry.commit('gh', 2, client('gh'), [tool('a', { description: 'new words' })]);
    registry.commit('gh', 3, client('gh'), [
      tool('a', { description: 'new words', inputSchema: { type: 'object', required: [] } }),
    ]);
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it('does not fire for a removal of a connector with no tools or a rejected commit', () => {
    const registry = createConnectorMCPRegistry();
    const listener = vi.fn();
    registry.onListChanged(listener);
    expect(registry.commit('empty', 1, client('e'), []).listChanged).toBe(false);
    expect(registry.remove('empty', 1)).toBe(true);
    expect(() => registry.commit('k', 1, client('k'), [tool('')])).toThrow();
    expect(listener).not.toHaveBeenCalled();
  });

  it('stops telling a listener after it unsubscribes, and survives a throwing listener', () => {
    const errors: unknown[] = [];
    const registry = createConnectorMCPRegistry({ onListenerError: (e) => errors.push(e) });
    const later = vi.fn();
    const unsubscribe = registry.onListChanged(later);
    registry.onListChanged(() => {
      throw new Error('listener broke');
    });
    registry.commit('a', 1, client('a'), [tool('x')]);
    unsubscribe();
    registry.commit('a', 2, client('a'), [tool('y')]);
    expect(later).toHaveBeenCalledTimes(1);
    expect(errors.map((e) => (e as Error).message)).toEqual(['listener broke', 'listener broke']);
    expect(registry.resolve('a_y')?.isCurrent()).toBe(true);
  });
});

describe('snapshot order', () => {
  it('orders by local name in code-unit order across connectors whose keys prefix others', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('ab', 1, client('ab'), [tool('z')]);
    registry.commit('a', 1, client('a'), [tool('Z'), tool('a'), tool('_')]);
    registry.commit('a-b', 1, client('a-b'), [tool('x')]);
    const names = registry.snapshot().tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(['a-b_x', 'a_Z', 'a__', 'a_a', 'ab_z']);
  });

  it('serializes exactly the served tools', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('b', 1, client('b'), [tool('one'), tool('two')]);
    registry.commit('a', 1, client('a'), [tool('three', { annotations: { title: 'T' } })]);
    const snapshot = registry.snapshot();
    expect(snapshot.toolsJson).toBe(JSON.stringify(snapshot.tools));
  });
});

describe('debugSnapshot', () => {
  it('lists routes, generations, fences and counts without the client or schemas', () => {
    const registry = createConnectorMCPRegistry();
    const secretClient = Object.assign(client('s'), { token: 'sk-secret-123' });
    registry.commit('b', 4, secretClient, [tool('x.y', { inputSchema: { type: 'object' } })]);
    registry.commit('a', 1, client('a'), [tool('p'), tool('q')]);
    registry.commit('gone', 2, client('g'), [tool('r')]);
    registry.remove('gone', 3);
    const debug = registry.debugSnapshot();
    expect(debug).toEqual({
      version: 4,
      toolCount: 3,
      routes: [
        {
          connectorKey: 'a',
          generation: 1,
          fence: 1,
          toolCount: 2,
          tools: [
            { localName: 'a_p', upstreamName: 'p' },
            { localName: 'a_q', upstreamName: 'q' },
          ],
        },
        {
          connectorKey: 'b',
          generation: 4,
          fence: 4,
          toolCount: 1,
          tools: [{ localName: 'b_x_y', upstreamName: 'x.y' }],
        },
      ],
      fences: [{ connectorKey: 'gone', fence: 3 }],
    });
    expect(JSON.stringify(debug)).not.toContain('sk-secret-123');
  });
});
