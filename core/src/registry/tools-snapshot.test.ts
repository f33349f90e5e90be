import { describe, expect, it } from 'vitest';
import type { UpstreamClient, UpstreamTool } from '../contracts/index.js';
import { isTuttiError } from '../errors/index.js';
import { createConnectorMCPRegistry } from './connector-mcp-registry.js';
import type { ToolsSnapshot } from './types.js';

const client: UpstreamClient = { callTool: async () => ({ content: [] }) };

function tools(count: number): UpstreamTool[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `t${String(i).padStart(3, '0')}`,
    description: `tool ${i}, with "quotes" and ,commas]`,
    inputSchema: { type: 'object', properties: { s: { type: 'string', default: '[,]' } } },
  }));
}

/** Follows nextCursor from the first page to the last; returns the pages' tools. */
function walk(snapshot: ToolsSnapshot, pageSize: number): { pages: number; all: unknown[] } {
  let cursor: string | undefined;
  let pages = 0;
  const all: unknown[] = [];
  do {
    const page = snapshot.page(cursor, pageSize);
    const parsed = JSON.parse(page.toolsJson) as unknown[];
    expect(parsed.length).toBeLessThanOrEqual(pageSize);
    all.push(...parsed);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== undefined);
  return { pages, all };
}

function badCursor(fn: () => unknown): boolean {
  try {
    fn();
  } catch (error) {
    return isTuttiError(error, 'TUTTI_ERR_REGISTRY_BAD_CURSOR');
  }
  return false;
}

describe('ToolsSnapshot.page', () => {
  it('pages through every tool exactly once, in order, for many page sizes', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('k', 1, client, tools(23));
    const snapshot = registry.snapshot();
    for (const size of [1, 2, 5, 22, 23, 24, 1000]) {
      const { pages, all } = walk(snapshot, size);
      expect(all, `page size ${size}`).toEqual(snapshot.tools);
      expect(pages).toBe(Math.ceil(23 / size));
    }
  });

  it('returns the whole prepared JSON when one page holds everything', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('k', 1, client, tools(3));
    const snapshot = registry.snapshot();
    expect(snapshot.page(undefined, 3)).toEqual({ toolsJson: snapshot.toolsJson });
  });

  it('serves an empty list as one empty page', () => {
    const snapshot = createConnectorMCPRegistry().snapshot();
    expect(snapshot.page(undefined, 10)).toEqual({ toolsJson: '[]' });
    expect(snapshot.toolsJson).toBe('[]');
  });

  it('rejects a cursor from an earlier version of the list', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('k', 1, client, tools(4));
    const cursor = registry.snapshot().page(undefined, 2).nextCursor!;
    registry.commit('j', 1, client, tools(1));
    expect(badCursor(() => registry.snapshot().page(cursor, 2))).toBe(true);
  });

  it('rejects a cursor issued by another registry at the same version', () => {
    const one = createConnectorMCPRegistry();
    const two = createConnectorMCPRegistry();
    one.commit('k', 1, client, tools(4));
    two.commit('k', 1, client, tools(4));
    const cursor = one.snapshot().page(undefined, 2).nextCursor!;
    expect(badCursor(() => two.snapshot().page(cursor, 2))).toBe(true);
    expect(JSON.parse(one.snapshot().page(cursor, 2).toolsJson)).toHaveLength(2);
  });

  it('rejects garbage and edited cursors', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('k', 1, client, tools(4));
    const snapshot = registry.snapshot();
    const good = snapshot.page(undefined, 2).nextCursor!;
    const decoded = Buffer.from(good, 'base64url').toString('utf8');
    const atOffset = (offset: string) =>
      Buffer.from(decoded.replace(/\.\d+$/, `.${offset}`)).toString('base64url');
    for (const cursor of [
      '',
      'x',
      '!!!',
      'a'.repeat(500),
      `${good}=`,
      atOffset('0'),
      atOffset('4'),
    ]) {
      expect(
        badCursor(() => snapshot.page(cursor, 2)),
        cursor,
      ).toBe(true);
    }
    expect(JSON.parse(snapshot.page(atOffset('3'), 2).toolsJson)).toEqual([snapshot.tools[3]]);
  });

  it('refuses a page size that is not a positive integer', () => {
    const snapshot = createConnectorMCPRegistry().snapshot();
    expect(() => snapshot.page(undefined, 0)).toThrow(RangeError);
    expect(() => snapshot.page(undefined, 1.5)).toThrow(RangeError);
  });
});
