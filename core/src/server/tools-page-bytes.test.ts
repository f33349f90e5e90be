import { describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { createConnectorMCPRegistry } from '../registry/index.js';
import { createFakeUpstream, text } from '@tutti/test-kit/core/fake-upstream';
import { createToolsPageBytes } from './tools-page-bytes.js';

function registryWith(count: number) {
  const registry = createConnectorMCPRegistry();
  const tools = Array.from({ length: count }, (_, i) => ({
    tool: { name: `t${String(i).padStart(2, '0')}`, inputSchema: { type: 'object' as const } },
    run: async () => text('ok'),
  }));
  const upstream = createFakeUpstream(tools);
  registry.commit('k', 1, upstream, upstream.tools);
  return { registry, upstream };
}

describe('toolsPageBytes', () => {
  const toolsPageBytes = createToolsPageBytes();

  it("serves the whole list as the snapshot's own prepared bytes", () => {
    const { registry } = registryWith(3);
    const snapshot = registry.snapshot();
    const page = toolsPageBytes(snapshot, undefined, 500);
    expect(page.bytes).toBe(snapshot.toolsJsonBytes);
    expect(page.nextCursor).toBeUndefined();
  });

  it('encodes each page once per snapshot, the same bytes as the page JSON', () => {
    const { registry } = registryWith(5);
    const snapshot = registry.snapshot();
    const first = toolsPageBytes(snapshot, undefined, 2);
    expect(first.bytes.toString('utf8')).toBe(snapshot.page(undefined, 2).toolsJson);
    expect(toolsPageBytes(snapshot, undefined, 2)).toBe(first);
    const second = toolsPageBytes(snapshot, first.nextCursor, 2);
    expect(second.bytes.toString('utf8')).toBe(snapshot.page(first.nextCursor, 2).toolsJson);
    const names = [first, second, toolsPageBytes(snapshot, second.nextCursor, 2)].flatMap((page) =>
      (JSON.parse(page.bytes.toString('utf8')) as { name: string }[]).map((t) => t.name),
    );
    expect(names).toEqual(['k_t00', 'k_t01', 'k_t02', 'k_t03', 'k_t04']);
  });

  it('refuses a cursor the snapshot did not issue, every time', () => {
    const { registry, upstream } = registryWith(5);
    const old = registry.snapshot();
    const cursor = toolsPageBytes(old, undefined, 2).nextCursor;
    toolsPageBytes(old, cursor, 2);
    registry.commit('k', 2, upstream, upstream.tools.slice(0, 4));
    const current = registry.snapshot();
    for (let i = 0; i < 2; i += 1) {
      let caught: unknown;
      try {
        toolsPageBytes(current, cursor, 2);
      } catch (error) {
        caught = error;
      }
      expect(isTuttiError(caught, 'TUTTI_ERR_REGISTRY_BAD_CURSOR')).toBe(true);
    }
  });
});
