/**
 * The server instructions the registry prepares from its routes: each connector's block in
 * key order, kept with its route (a new generation replaces it, a removal drops it), and a
 * new object exactly when the text changes.
 */
import { describe, expect, it, vi } from 'vitest';
import type { UpstreamClient, UpstreamTool } from '../contracts/index.js';
import { createConnectorMCPRegistry } from './connector-mcp-registry.js';

const client: UpstreamClient = { callTool: async () => ({ content: [] }) };

function tools(...names: string[]): UpstreamTool[] {
  return names.map((name) => ({ name, inputSchema: { type: 'object' } }));
}

describe('server instructions of the registry', () => {
  it('has none before any connector sent some', () => {
    const registry = createConnectorMCPRegistry();
    expect(registry.instructions()).toEqual({ version: 0, text: undefined });
    registry.commit('quiet', 1, client, tools('a'));
    registry.commit('blank', 1, client, tools('a'), ' \n ');
    expect(registry.instructions()).toEqual({ version: 0, text: undefined });
  });

  it("joins every connector's instructions in key order, each block opened by its key", () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('linear', 1, client, tools('find'), 'Find issues by team.');
    registry.commit('github', 1, client, tools('search'), 'Search first.\nThen open one.');
    registry.commit('notes', 1, client, tools('add'));
    expect(registry.instructions().text).toBe(
      'github: Search first.\n  Then open one.\nlinear: Find issues by team.',
    );
  });

  it("replaces a connector's block with its new generation's, without a tools list change", () => {
    const registry = createConnectorMCPRegistry();
    const listener = vi.fn();
    registry.commit('github', 1, client, tools('search'), 'Version one.');
    const before = registry.instructions();
    const snapshot = registry.snapshot();
    registry.onListChanged(listener);

    registry.commit('github', 2, client, tools('search'), 'Version two.');
    expect(registry.instructions()).toEqual({
      version: before.version + 1,
      text: 'github: Version two.',
    });
    expect(registry.snapshot()).toBe(snapshot);
    expect(listener).not.toHaveBeenCalled();
  });

  it('keeps the same instructions object when a new generation sends the same text', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('github', 1, client, tools('search'), 'Same.');
    const before = registry.instructions();
    registry.commit('github', 2, client, tools('search', 'open'), 'Same.');
    expect(registry.instructions()).toBe(before);
  });

  it('drops the block of a connector whose route is removed, and has none once all are gone', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('github', 1, client, tools('search'), 'GitHub text.');
    registry.commit('linear', 1, client, tools('find'), 'Linear text.');
    registry.remove('github', 1);
    expect(registry.instructions().text).toBe('linear: Linear text.');
    registry.remove('linear', 1);
    expect(registry.instructions().text).toBeUndefined();
  });

  it('drops the block when a new generation of the connector sends none', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('github', 1, client, tools('search'), 'GitHub text.');
    registry.commit('github', 2, client, tools('search'));
    expect(registry.instructions().text).toBeUndefined();
  });

  it('leaves the instructions unchanged when a commit is rejected', () => {
    const registry = createConnectorMCPRegistry();
    registry.commit('github', 2, client, tools('search'), 'Serving.');
    const before = registry.instructions();
    expect(() => registry.commit('github', 2, client, tools('search'), 'Stale.')).toThrow();
    expect(() =>
      registry.commit('github', 3, client, [{ name: '' } as UpstreamTool], 'Broken.'),
    ).toThrow();
    expect(registry.instructions()).toBe(before);
  });
});
