import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolBinding, UpstreamClient, UpstreamTool } from '../contracts/index.js';
import { isTuttiError } from '../errors/index.js';
import { createConnectorMCPRegistry } from './connector-mcp-registry.js';
import { toLocalName } from './local-name.js';

/** One random step against the registry. */
type Op =
  | {
      kind: 'commit';
      key: string;
      generation: number;
      tools: { tool: UpstreamTool; valid: boolean }[];
    }
  | { kind: 'remove'; key: string; generation: number }
  | { kind: 'resolve'; name: string }
  | { kind: 'list'; pageSize: number };

const SCHEMAS = [
  { schema: { type: 'object' }, valid: true },
  { schema: { type: 'object', properties: { a: { type: 'string' } } }, valid: true },
  {
    schema: { type: 'object', $defs: { x: {} }, properties: { y: { $ref: '#/$defs/x' } } },
    valid: true,
  },
  { schema: { type: 'string' }, valid: false },
  { schema: { type: 'object', properties: { a: { type: 'nope' } } }, valid: false },
];

const keyArb = fc.constantFrom('a', 'ab', 'a-b', 'b0', 'k'.repeat(32), 'Bad_Key');
const nameArb = fc.oneof(
  fc.constantFrom('x', 'x.y', 'x_y', 'x y', 'X', '', 'é', '😀'),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }),
  fc.string({ minLength: 40, maxLength: 70 }),
  fc.constantFrom('p'.repeat(60), `${'p'.repeat(59)}q`),
);
const toolArb = fc
  .record({
    name: nameArb,
    description: fc.constantFrom('one', 'two'),
    schema: fc.constantFrom(...SCHEMAS),
  })
  .map(({ name, description, schema }) => ({
    tool: { name, description, inputSchema: schema.schema } as UpstreamTool,
    valid: schema.valid && name.length > 0,
  }));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('commit' as const),
      key: keyArb,
      generation: fc.integer({ min: 0, max: 8 }),
      tools: fc.array(toolArb, { maxLength: 5 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('remove' as const),
      key: keyArb,
      generation: fc.integer({ min: 0, max: 8 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resolve' as const), name: nameArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('list' as const),
      pageSize: fc.integer({ min: 1, max: 4 }),
    }),
  },
);

interface ModelRoute {
  generation: number;
  client: UpstreamClient;
  tools: UpstreamTool[];
}

/** The visible list the model expects: every current route's tools, local names, sorted. */
function expectedList(routes: Map<string, ModelRoute>): unknown[] {
  const served = [...routes].flatMap(([key, route]) =>
    route.tools.map((tool) => ({ ...tool, name: toLocalName(key, tool.name) })),
  );
  return served.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** True when the model expects the key and generation to pass the fence. */
function passesFence(key: string, generation: number, fence: number | undefined): boolean {
  return /^[a-z0-9][a-z0-9-]{0,31}$/.test(key) && (fence === undefined || generation > fence);
}

describe('ConnectorMCPRegistry under random operation sequences', () => {
  it('always matches a simple model of routes, fences, bindings and list-changed events', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const registry = createConnectorMCPRegistry();
        const routes = new Map<string, ModelRoute>();
        const fences = new Map<string, number>();
        const held: ToolBinding[] = [];
        let events = 0;
        registry.onListChanged(() => {
          events += 1;
        });

        for (const op of ops) {
          const listBefore = JSON.stringify(expectedList(routes));
          const versionBefore = registry.snapshot().version;
          const eventsBefore = events;

          if (op.kind === 'commit') {
            const client: UpstreamClient = { callTool: async () => ({ content: [] }) };
            const upstream = op.tools.map((t) => t.tool);
            const localNames = upstream.map((t) => toLocalName(op.key, t.name));
            const acceptable =
              passesFence(op.key, op.generation, fences.get(op.key)) &&
              op.tools.every((t) => t.valid) &&
              new Set(localNames).size === localNames.length;
            const debugBefore = registry.debugSnapshot();
            const snapshotBefore = registry.snapshot();
            let accepted = true;
            try {
              registry.commit(op.key, op.generation, client, upstream);
            } catch (error) {
              expect(isTuttiError(error)).toBe(true);
              accepted = false;
            }
            expect(accepted).toBe(acceptable);
            if (accepted) {
              routes.set(op.key, { generation: op.generation, client, tools: upstream });
              fences.set(op.key, op.generation);
            } else {
              // A rejected commit changes nothing.
              expect(registry.debugSnapshot()).toEqual(debugBefore);
              expect(registry.snapshot()).toBe(snapshotBefore);
            }
          } else if (op.kind === 'remove') {
            const validKey = /^[a-z0-9][a-z0-9-]{0,31}$/.test(op.key);
            if (!validKey) {
              expect(() => registry.remove(op.key, op.generation)).toThrow();
              continue;
            }
            const route = routes.get(op.key);
            const removes = route !== undefined && route.generation <= op.generation;
            expect(registry.remove(op.key, op.generation)).toBe(removes);
            fences.set(op.key, Math.max(fences.get(op.key) ?? op.generation, op.generation));
            if (removes) routes.delete(op.key);
          } else if (op.kind === 'resolve') {
            const binding = registry.resolve(`a_${op.name}`);
            const route = routes.get('a');
            const expected = route?.tools.find((t) => toLocalName('a', t.name) === `a_${op.name}`);
            expect(binding?.upstreamName).toBe(expected?.name);
          } else {
            const snapshot = registry.snapshot();
            const pages: unknown[] = [];
            let cursor: string | undefined;
            do {
              const page = snapshot.page(cursor, op.pageSize);
              pages.push(...(JSON.parse(page.toolsJson) as unknown[]));
              cursor = page.nextCursor;
            } while (cursor !== undefined);
            expect(pages).toEqual(snapshot.tools);
          }

          // The snapshot always equals the union of the current routes.
          const expected = expectedList(routes);
          const snapshot = registry.snapshot();
          expect(JSON.parse(snapshot.toolsJson)).toEqual(expected);
          expect(snapshot.tools).toEqual(expected);

          // list-changed fired iff the visible list changed, and the version moved with it.
          const changed = JSON.stringify(expected) !== listBefore;
          expect(events - eventsBefore).toBe(changed ? 1 : 0);
          expect(snapshot.version - versionBefore).toBe(changed ? 1 : 0);

          // No local name maps to two upstream tools; each resolves to its current route.
          const names = snapshot.tools.map((t) => t.name);
          expect(new Set(names).size).toBe(names.length);
          for (const [key, route] of routes) {
            for (const tool of route.tools) {
              const binding = registry.resolve(toLocalName(key, tool.name));
              expect(binding).toMatchObject({
                connectorKey: key,
                generation: route.generation,
                upstreamName: tool.name,
              });
              expect(binding?.client).toBe(route.client);
              held.push(binding!);
            }
          }

          // A fenced generation never resolves and never reports itself current.
          for (const binding of held) {
            const current = routes.get(binding.connectorKey)?.generation === binding.generation;
            expect(binding.isCurrent()).toBe(current);
            if (!current) {
              expect(registry.resolve(binding.localName)?.generation).not.toBe(binding.generation);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
