/**
 * However a real `tuttid` process ends (SIGKILL, SIGTERM, SIGINT, an uncaught error),
 * nothing it started outlives it: not its upstream servers, not the children those
 * spawned, not its reaper watchdog. After an abrupt death (SIGKILL, uncaught error), a
 * new daemon on the same home starts and serves every connector again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp, THROW_ON_SIGNAL } from '@tutti/test-kit';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';
import { descendantsOf, survivors } from '@tutti/test-kit/proc-tree';

const THROWER = THROW_ON_SIGNAL;
const homes: string[] = [];

afterEach(async () => {
  await stopAll();
  await cleanUp();
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

/** A daemon whose process (with `preload`) can be made to throw an uncaught error. */
async function startDaemon(home: string, preload?: string): Promise<TuttidProcess> {
  if (!preload) return startTuttid(home, ['--no-demo']);
  const saved = process.env.NODE_OPTIONS;
  // The harness spawns synchronously, so only this child sees the option.
  process.env.NODE_OPTIONS = `${saved ?? ''} --import ${preload}`.trim();
  try {
    return await startTuttid(home, ['--no-demo']);
  } finally {
    if (saved === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = saved;
  }
}

/** Installs three connectors, two of whose servers spawn a child of their own. */
async function installConnectors(daemon: TuttidProcess): Promise<void> {
  for (const [key, serverArgs] of [
    ['one', ['--spawn-child']],
    ['two', ['--spawn-child', '--tools', '3']],
    ['three', []],
  ] as const) {
    const path = await writeRelease({ key, serverArgs: [...serverArgs] });
    expect((await daemon.control('POST', '/v1/connectors/install', { path })).status).toBe(200);
  }
  const { body } = await daemon.control('GET', '/debug/registry');
  expect(body.connectors.map((c: { state: string }) => c.state)).toEqual([
    'ready',
    'ready',
    'ready',
  ]);
}

const endings = [
  {
    how: 'SIGKILL',
    end: (d: TuttidProcess) => d.child.kill('SIGKILL'),
    exit: { code: null, signal: 'SIGKILL' },
  },
  {
    how: 'SIGTERM',
    end: (d: TuttidProcess) => d.child.kill('SIGTERM'),
    exit: { code: 143, signal: null },
  },
  {
    how: 'SIGINT',
    end: (d: TuttidProcess) => d.child.kill('SIGINT'),
    exit: { code: 130, signal: null },
  },
  {
    how: 'an uncaught error',
    preload: THROWER,
    end: (d: TuttidProcess) => d.child.kill('SIGUSR2'),
    exit: { code: 1, signal: null },
  },
] as const;

describe('a tuttid process that ends', () => {
  it.each(endings)('leaves no process behind when it ends by $how', async (ending) => {
    const home = await mkdtemp(join(tmpdir(), 'tuttid-exit-'));
    homes.push(home);
    const daemon = await startDaemon(home, 'preload' in ending ? ending.preload : undefined);
    await installConnectors(daemon);
    const tree = descendantsOf(daemon.ready.pid);
    // Three upstreams, the two children they spawned, and the reaper watchdog.
    expect(tree.length).toBeGreaterThanOrEqual(6);

    ending.end(daemon);
    expect(await daemon.exited).toEqual(ending.exit);
    expect(await survivors(tree)).toEqual([]);
    if (ending.how === 'an uncaught error') {
      expect(daemon.stderr()).toContain('induced uncaught error');
    }

    // The graceful endings' restart is covered in test/daemon/tuttid.test.ts.
    if (ending.how === 'SIGTERM' || ending.how === 'SIGINT') return;
    const again = await startTuttid(home);
    expect((await again.settled)?.connectors).toEqual([
      { key: 'one', state: 'ready', toolCount: 12 },
      { key: 'three', state: 'ready', toolCount: 12 },
      { key: 'two', state: 'ready', toolCount: 15 },
    ]);
  });
});
