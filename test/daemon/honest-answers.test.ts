/**
 * Answers that mean what they say, with real `tuttid` processes and real upstreams: a
 * credential PUT answers with what the runtime made of the key (a wrong one: failed, and
 * why), a storm of list_changed with an unchanged list takes no revision and changes
 * nothing, a credential file that cannot be read is reported as such, and a normal
 * shutdown logs no crash and restarts nothing.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INTERFACE_ADVICE } from '@tutti/core/client';
import { SILENT_SERVER, writeRelease, cleanUp, tempHomes } from '@tutti/test-kit';
import { openStore } from '@tutti/core/internal';
import { openEvents } from '@tutti/test-kit/event-stream';
import { startTuttid, stopAll, type TuttidProcess, waitForConnector } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tuttid-answers-');
const newHome = () => homes.make();

afterEach(async () => {
  await stopAll();
  await cleanUp();
  await homes.removeAll();
});

/** The JSON log lines the daemon wrote so far. */
function logLines(daemon: TuttidProcess): { msg?: string; connector?: string; code?: string }[] {
  return daemon
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

describe('a credential PUT', () => {
  it('answers with the state after its reconcile: failed and why for a wrong key, ready for the right one', async () => {
    const daemon = await startTuttid(await newHome(), ['--no-demo']);
    const path = await writeRelease({
      key: 'checked',
      serverArgs: ['--expect-env', 'CHECKED_KEY=right-key-123'],
      apiKeyEnv: 'CHECKED_KEY',
    });
    await daemon.control('POST', '/v1/connectors/install', { path });

    const wrong = await daemon.control('PUT', '/v1/connectors/checked/credentials', {
      secret: 'wrong-key-456',
    });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toMatchObject({ key: 'checked', changed: true, authReady: true });
    expect(wrong.body.runtime).toMatchObject({
      state: 'failed',
      mcp: 'failed',
      advice: INTERFACE_ADVICE.failed,
    });
    expect(wrong.body.runtime.lastError).toContain('exit code 2');
    expect(wrong.body.runtime.stderr).toEqual(['401 invalid API key']);

    const right = await daemon.control('PUT', '/v1/connectors/checked/credentials', {
      secret: 'right-key-123',
    });
    expect(right.body.runtime).toMatchObject({ state: 'ready', mcp: 'ready' });
    expect(right.body.runtime.advice).toBeUndefined();

    const cleared = await daemon.control('DELETE', '/v1/connectors/checked/credentials');
    expect(cleared.body).toMatchObject({ authReady: false, runtime: { state: 'needs-auth' } });
  });
});

describe('a list_changed storm with an unchanged list', () => {
  it('takes no revision, commits nothing and publishes nothing', async () => {
    const home = await newHome();
    const daemon = await startTuttid(home, ['--no-demo']);
    const events = await openEvents(daemon);
    try {
      const path = await writeRelease({ key: 'stormy', serverArgs: ['--storm', '2000'] });
      const installed = await daemon.control('POST', '/v1/connectors/install', { path });
      expect(installed.body.runtime.state).toBe('ready');
      const before = (await daemon.control('GET', '/debug/registry')).body;
      const stateBefore = await readFile(join(home, 'state', 'installed.json'), 'utf8');
      const from = events.events.length;

      // The storm ends on its own; the server says when, and how often it was re-listed.
      let done: RegExpMatchArray | null = null;
      while (!done) {
        const { runtime } = await waitForConnector(daemon, 'stormy');
        done = (runtime.stderr ?? []).join('\n').match(/storm done after (\d+) tools\/list/);
        if (!done) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The daemon did re-list (coalesced), so the storm reached it.
      expect(Number(done[1])).toBeGreaterThan(1);

      const after = (await daemon.control('GET', '/debug/registry')).body;
      expect(after.registry.version).toBe(before.registry.version);
      const stormy = after.connectors.find((c: { key: string }) => c.key === 'stormy');
      expect(stormy).toMatchObject({
        revision: installed.body.revision,
        generation: installed.body.revision,
      });
      expect(after.events.filter((e: { kind: string }) => e.kind === 'tools-changed')).toEqual([]);
      expect(await readFile(join(home, 'state', 'installed.json'), 'utf8')).toBe(stateBefore);
      expect(events.events.slice(from).filter((e) => e.type === 'tools.changed')).toEqual([]);
    } finally {
      events.close();
    }
  });
});

describe('a credential file that cannot be read', () => {
  it('is reported in the log and the state, with the reason, and a new credential fixes it', async () => {
    const home = await newHome();
    const store = await openStore(home);
    await store.install(
      await writeRelease({
        key: 'damaged',
        serverArgs: [],
        apiKeyEnv: 'DAMAGED_KEY',
        cli: 'console.log("cli");\n',
      }),
    );
    await store.setCredential('damaged', 'a-good-secret-789');
    await writeFile(join(home, 'credentials', 'damaged.json'), '{"version": 1, "kind": "api_');

    const daemon = await startTuttid(home, ['--no-demo']);
    const { runtime } = await waitForConnector(daemon, 'damaged', ['failed']);
    expect(runtime).toMatchObject({
      mcp: 'failed',
      cli: 'failed',
      advice: INTERFACE_ADVICE.failed,
    });
    expect(runtime.lastError).toContain(
      'The credential file of connector "damaged" cannot be read',
    );
    expect(runtime.lastError).toContain('not valid JSON');
    expect(logLines(daemon)).toContainEqual(
      expect.objectContaining({ connector: 'damaged', code: 'TUTTI_ERR_STORE_CREDENTIAL_CORRUPT' }),
    );
    const { body } = await daemon.control('GET', '/v1/connectors/available');
    expect(body.connectors[0].interfaces.map((i: { status: string }) => i.status)).toEqual([
      'failed',
      'failed',
    ]);

    const fixed = await daemon.control('PUT', '/v1/connectors/damaged/credentials', {
      secret: 'a-new-secret-012',
    });
    expect(fixed.body.runtime).toMatchObject({ state: 'ready', mcp: 'ready', cli: 'ready' });
    expect(daemon.stderr()).not.toContain('a-good-secret-789');
  });
});

describe('a normal shutdown', () => {
  it('logs no crash and restarts nothing, a start in progress included', async () => {
    const home = await newHome();
    const store = await openStore(home);
    await store.install(await writeRelease({ key: 'steady', serverArgs: [] }));
    await store.install(
      await writeRelease({
        key: 'slow',
        serverArgs: [],
        script: SILENT_SERVER,
        startTimeoutMs: 600_000,
      }),
    );
    const daemon = await startTuttid(home, ['--no-demo'], { until: 'ready' });
    await waitForConnector(daemon, 'steady');
    const before = logLines(daemon).length;

    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(143);
    const shutdown = logLines(daemon).slice(before);
    const noisy = shutdown.filter((line) =>
      /crashed|restarted|start-failed|upstream ended|upstream failed/.test(line.msg ?? ''),
    );
    expect(noisy).toEqual([]);
  });
});
