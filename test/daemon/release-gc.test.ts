/**
 * The store does not grow forever, with a real `tuttid`: after upgrades only the
 * installed release and the last good one of the key are left, after an uninstall none,
 * and a daemon start removes releases nothing uses.
 */
import { cp, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp, tempHomes } from '@tutti/test-kit';
import { groupGone } from '@tutti/test-kit/processes';
import { openStore } from '@tutti/core/internal';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tuttid-gc-');
const newHome = () => homes.make();

afterEach(async () => {
  await stopAll();
  await cleanUp();
  await homes.removeAll();
});

async function releases(home: string): Promise<string[]> {
  return (await readdir(join(home, 'releases'))).filter((name) => !name.startsWith('.')).sort();
}

/** Installs version `n` of connector `gc`; returns the pid of its upstream, once ready. */
async function upgradeTo(daemon: TuttidProcess, n: number): Promise<number> {
  const path = await writeRelease({ key: 'gc', version: `1.0.${n}`, serverArgs: [] });
  const { body } = await daemon.control('POST', '/v1/connectors/install', { path });
  expect(body.runtime.state).toBe('ready');
  return body.runtime.pid;
}

describe('release GC', () => {
  it('keeps the installed release and the last good one after upgrades, and none after an uninstall', async () => {
    const home = await newHome();
    const daemon = await startTuttid(home, ['--no-demo']);
    const seen: string[] = [];
    const pids: number[] = [];
    for (const n of [1, 2, 3]) {
      const before = new Set(await releases(home));
      pids.push(await upgradeTo(daemon, n));
      seen.push((await releases(home)).find((name) => !before.has(name))!);
      // The upstream it replaced stops: no release is in use then but the serving one.
      if (pids.length > 1) expect(await groupGone(pids.at(-2))).toBe(true);
    }
    const [v1, v2, v3] = seen;
    expect(await releases(home)).toEqual([v2, v3].sort());
    expect(await releases(home)).not.toContain(v1);

    // An uninstall leaves nothing of the key.
    const removed = await daemon.control('DELETE', '/v1/connectors/gc');
    expect(removed.body.changed).toBe(true);
    expect(await releases(home)).toEqual([]);
  });

  it('removes releases no installed connector uses when it starts', async () => {
    const home = await newHome();
    const store = await openStore(home);
    const kept = await store.install(await writeRelease({ key: 'kept', serverArgs: [] }));
    const stray = 'e'.repeat(64);
    await cp(kept.releaseDir, join(home, 'releases', stray), { recursive: true });
    expect(await releases(home)).toEqual([kept.digest, stray].sort());

    const daemon = await startTuttid(home, ['--no-demo']);
    expect(await releases(home)).toEqual([kept.digest]);
    expect(daemon.stderr()).toContain('removed releases no installed connector uses');
  });
});
