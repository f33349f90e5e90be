import { afterEach, describe, expect, it } from 'vitest';
import type { TuttiEventBody } from '../events/index.js';
import { cleanUp, writeRelease } from '@tutti/test-kit';
import { FAILURE_ADVICE } from './connector-events.js';
import type { ConnectorRuntime } from './connector-runtime.js';
import { createTestRuntime } from '@tutti/test-kit/core/test-runtime';

const runtimes: ConnectorRuntime[] = [];

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await cleanUp();
});

/** A runtime whose published events land in `published`. */
async function publishing() {
  const published: TuttiEventBody[] = [];
  const context = await createTestRuntime({
    events: { publish: (event) => published.push(event) },
  });
  runtimes.push(context.runtime);
  return { ...context, published };
}

/** Resolves once `probe` holds, polling (bounded for a busy machine). */
async function waitUntil(probe: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('connector runtime events', () => {
  it('publishes connector.failed with the start-failed status and its fixed advice when a connector does not start', async () => {
    const { store, runtime, published } = await publishing();
    await store.install(
      await writeRelease({ key: 'broken', serverArgs: [], command: '/nonexistent/tutti-mcp' }),
    );
    await runtime.reconcile();
    expect(published.filter((event) => event.type === 'connector.failed')).toEqual([
      {
        type: 'connector.failed',
        key: 'broken',
        status: 'start-failed',
        advice: FAILURE_ADVICE['start-failed'],
      },
    ]);
  });

  it('publishes connector.failed with the crashed status and its fixed advice when a serving upstream ends', async () => {
    const { store, registry, runtime, published } = await publishing();
    await store.install(await writeRelease({ key: 'fragile', serverArgs: [] }));
    await runtime.reconcile();
    expect(published.some((event) => event.type === 'connector.failed')).toBe(false);
    await registry
      .resolve('fragile_echo')!
      .client.callTool('crash', {})
      .catch(() => undefined);
    // The runtime publishes what it records, as it records it.
    await waitUntil(() => runtime.events().some((event) => event.kind === 'crashed'), 'the crash');
    expect(published.filter((event) => event.type === 'connector.failed')).toEqual([
      {
        type: 'connector.failed',
        key: 'fragile',
        status: 'crashed',
        advice: FAILURE_ADVICE.crashed,
      },
    ]);
  });
});
