/**
 * A connector's instructions travel with its live generation, with real stdio upstreams:
 * committed with its tools at start, kept by a relist, gone while a crashed upstream
 * restarts and back with the new one, replaced by an upgrade, gone with an uninstall.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, writeRelease } from '@tutti/test-kit';
import type { ConnectorRuntime } from './connector-runtime.js';
import { createTestRuntime } from '@tutti/test-kit/core/test-runtime';

const runtimes: ConnectorRuntime[] = [];

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await cleanUp();
});

async function waitFor<T>(probe: () => T | undefined | false, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('connector runtime: instructions', () => {
  it("carries each upstream's instructions with its generation, through relist, crash and upgrade", async () => {
    const { store, registry, runtime } = await createTestRuntime({ stableMs: 0 });
    runtimes.push(runtime);
    const release = (key: string, version: string, instructions: string) =>
      writeRelease({ key, version, serverArgs: ['--instructions', instructions] });
    await store.install(await release('docs', '1.0.0', 'Read before you write.'));
    await store.install(await release('tasks', '1.0.0', 'One task per call.\nClose when done.'));
    await runtime.reconcile();
    const both = 'docs: Read before you write.\ntasks: One task per call.\n  Close when done.';
    expect(registry.instructions().text).toBe(both);

    // list_changed: a new generation of the same upstream keeps its instructions.
    const first = registry.resolve('docs_echo')!;
    await first.client.callTool('add_tool', { name: 'more' });
    await waitFor(() => registry.resolve('docs_more'), 'the relist');
    expect(registry.instructions().text).toBe(both);

    // A crash retires the route and its instructions; the restarted upstream brings them back.
    const seen: (string | undefined)[] = [];
    const off = registry.onListChanged(() => seen.push(registry.instructions().text));
    const crashed = registry.resolve('tasks_echo')!;
    await crashed.client.callTool('crash', {}).catch(() => undefined);
    await waitFor(
      () => (registry.resolve('tasks_echo')?.generation ?? 0) > crashed.generation,
      'the restart',
    );
    off();
    expect(seen).toEqual(['docs: Read before you write.', both]);

    // An upgrade whose server sends other instructions replaces them; an uninstall drops them.
    await store.install(await release('docs', '2.0.0', 'Search, then read.'));
    await runtime.reconcile();
    expect(registry.instructions().text).toBe(
      'docs: Search, then read.\ntasks: One task per call.\n  Close when done.',
    );
    await store.uninstall('tasks');
    await runtime.reconcile();
    expect(registry.instructions().text).toBe('docs: Search, then read.');
  });
});
