/**
 * A remote connector whose server goes away is noticed without an agent's call, even when
 * the server keeps no stream open (an MCP 2025 stateless server): its tools go within the
 * daemon's bound with one tools change, and come back within it, with one more, once the
 * server answers again on its address.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
type TuttiEvent = { readonly type: string };
import { cleanUp, tempDir } from '@tutti/test-kit';
import { startHttpUpstream } from '@tutti/test-kit/http-upstream';
import {
  closeDaemons,
  startTestDaemon,
  type TestDaemon,
} from '@tutti/test-kit/reliability/in-process-daemon';

interface HttpFixture {
  url: string;
  port: number;
  close(): Promise<void>;
}

const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await closeDaemons();
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close().catch(() => undefined)));
  await cleanUp();
});

/** The daemon's bound for noticing a server gone or back (docs/control-api.md), with slack for a busy machine. */
const BOUND_MS = 15_000;
const SLACK_MS = 15_000;

async function waitFor(probe: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The tools of `key` the registry serves. */
function toolsOf(test: TestDaemon, key: string): number {
  return test.daemon.runtime.status().find((status) => status.key === key)?.toolCount ?? 0;
}

describe('a remote server that goes away and comes back', () => {
  it('loses its tools within the bound with one change, and gets them back with one more', async () => {
    const first = (await startHttpUpstream({ era: 'legacy' })) as HttpFixture;
    fixtures.push(first);
    const test = await startTestDaemon();
    const changes: TuttiEvent[] = [];
    test.daemon.events.subscribe({
      write: (event) => {
        if (event.type === 'tools.changed') changes.push(event);
        return true;
      },
      onDrain: () => {},
      end: () => {},
    });
    const dir = join(await tempDir('tutti-remote-health-'), 'far');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'tutti-connector.json'),
      JSON.stringify({
        key: 'far',
        name: 'Far',
        description: 'A remote server that goes away.',
        version: '1.0.0',
        mcp: { url: first.url },
        auth: { kind: 'none' },
      }),
    );
    const installed = await test.control('POST', '/v1/connectors/install', {
      path: dir,
      wait: true,
    });
    expect(installed.body.runtime.state).toBe('ready');
    const tools = toolsOf(test, 'far');
    expect(tools).toBeGreaterThan(0);
    const before = changes.length;

    await first.close();
    fixtures.splice(fixtures.indexOf(first), 1);
    await waitFor(() => toolsOf(test, 'far') === 0, 'the tools gone', BOUND_MS + SLACK_MS);
    expect(changes.length).toBe(before + 1);
    const gone = test.daemon.runtime.status().find((status) => status.key === 'far');
    expect(gone?.state).not.toBe('ready');
    expect(gone?.lastError).toBeTruthy();

    const again = (await startHttpUpstream({ era: 'legacy', port: first.port })) as HttpFixture;
    fixtures.push(again);
    await waitFor(() => toolsOf(test, 'far') === tools, 'the tools back', BOUND_MS + SLACK_MS);
    expect(changes.length).toBe(before + 2);
    expect(test.daemon.runtime.status().find((status) => status.key === 'far')?.parked).toBe(
      undefined,
    );
  });
});
