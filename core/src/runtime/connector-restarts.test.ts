import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, writeRelease } from '@tutti/test-kit';
import type { ConnectorRuntime } from './connector-runtime.js';
import { createTestRuntime } from '@tutti/test-kit/core/test-runtime';

const runtimes: ConnectorRuntime[] = [];

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await cleanUp();
});

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('connector runtime: restart policy', () => {
  it('restarts at once after a healthy run and backs off only a crash loop, up to the cap', async () => {
    let clock = 1_000_000;
    const { store, registry, runtime } = await createTestRuntime({
      now: () => clock,
      stableMs: 10_000,
      backoff: { initialMs: 20, maxMs: 80 },
    });
    runtimes.push(runtime);
    await store.install(await writeRelease({ key: 'loop', serverArgs: [] }));
    await runtime.reconcile();
    /** Crashes the serving upstream and returns the restart delay the runtime chose. */
    const crash = async (): Promise<number> => {
      const serving = registry.resolve('loop_echo')!;
      const crashes = runtime.events().filter((event) => event.kind === 'crashed').length;
      await serving.client.callTool('crash', {}).catch(() => undefined);
      const event = await waitFor(
        () => runtime.events().filter((e) => e.kind === 'crashed')[crashes],
        'the crash',
      );
      await waitFor(() => {
        const next = registry.resolve('loop_echo');
        return next && next.generation > serving.generation ? next : undefined;
      }, 'the restart');
      return Number(/restart in (\d+) ms/.exec(event.detail ?? '')?.[1]);
    };
    clock += 60_000; // served for a minute: a healthy run
    expect(await crash()).toBe(0);
    expect(runtime.status()[0]?.failures).toBe(0);
    clock += 60_000;
    expect(await crash()).toBe(0); // killed again after another healthy run: still at once
    // Crashes right after ready are a crash loop: backed off, doubling up to the cap.
    const loop = [await crash(), await crash(), await crash(), await crash()];
    expect(loop.map((delay) => Math.floor(delay / 10) * 10)).toEqual([20, 40, 80, 80]);
    expect(runtime.status()[0]?.failures).toBe(4);
    clock += 10_000;
    expect(await crash()).toBe(0);
    expect(runtime.status()[0]?.failures).toBe(0);
  });
});
