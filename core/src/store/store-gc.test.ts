import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from './store.js';
import { cleanUp, CONNECTOR_FIXTURES as FIXTURES, fixtureCopy, tempDir } from '@tutti/test-kit';

afterEach(cleanUp);

/** Release `n` of the echo fixture: the same connector with other content. */
const version = (n: number) => fixtureCopy('echo', { 'server.mjs': `// v${n}\n` });

async function releases(home: string): Promise<string[]> {
  return (await readdir(join(home, 'releases'))).filter((name) => !name.startsWith('.')).sort();
}

describe('connector store: release GC', () => {
  it('keeps the installed release and the last good one of the key for a rollback', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const v1 = await store.install(await version(1));
    await store.markGood('echo', v1.digest);
    const v2 = await store.install(await version(2));
    await store.markGood('echo', v2.digest);
    const v3 = await store.install(await version(3));
    // v3 never ran: v2, the last that did, is what a rollback goes back to.
    expect(await store.pruneReleases()).toEqual([v1.digest]);
    expect(await releases(home)).toEqual([v2.digest, v3.digest].sort());

    await store.markGood('echo', v3.digest);
    // v3 ran: it is installed, and v2 stays as the release before it.
    expect(await store.pruneReleases()).toEqual([]);
    const v4 = await store.install(await version(4));
    await store.markGood('echo', v4.digest);
    expect(await store.pruneReleases()).toEqual([v2.digest]);
    expect(await releases(home)).toEqual([v3.digest, v4.digest].sort());
  });

  it('keeps the last good release through upgrades that never ran', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const good = await store.install(await version(1));
    await store.markGood('echo', good.digest);
    await store.install(await version(2));
    const v3 = await store.install(await version(3));
    await store.pruneReleases();
    expect(await releases(home)).toEqual([good.digest, v3.digest].sort());
  });

  it('removes every release of an uninstalled key and forgets its good ones', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const v1 = await store.install(await version(1));
    await store.markGood('echo', v1.digest);
    const v2 = await store.install(await version(2));
    await store.markGood('echo', v2.digest);
    await store.uninstall('echo');
    expect(await store.pruneReleases()).toEqual([v1.digest, v2.digest].sort());
    const ran = JSON.parse(await readFile(join(home, 'state', 'good-releases.json'), 'utf8'));
    expect(ran.good).toEqual({});
  });

  it('keeps what is still in use, and leaves staging folders of live installs alone', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const v1 = await store.install(await version(1));
    const v2 = await store.install(await version(2));
    await mkdir(join(home, 'releases', `.staging-${process.pid}-abcdef`));
    expect(await store.pruneReleases([v1.digest])).toEqual([]);
    expect(await store.pruneReleases()).toEqual([v1.digest]);
    expect(await readdir(join(home, 'releases'))).toEqual(
      expect.arrayContaining([v2.digest, `.staging-${process.pid}-abcdef`]),
    );
  });

  it('records a good release once, and only the installed one', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const v1 = await store.install(join(FIXTURES, 'echo'));
    await store.markGood('echo', v1.digest);
    const file = join(home, 'state', 'good-releases.json');
    const before = await readFile(file, 'utf8');
    await store.markGood('echo', v1.digest);
    await store.markGood('echo', 'f'.repeat(64));
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(JSON.parse(before).good).toEqual({ echo: [v1.digest] });
  });

  it('keeps installed.json in the shape a daemon without the GC reads, and remembers across opens', async () => {
    const home = await tempDir();
    const first = await openStore(home);
    const v1 = await first.install(await version(1));
    await first.markGood('echo', v1.digest);
    await first.install(await version(2));
    const state = JSON.parse(await readFile(join(home, 'state', 'installed.json'), 'utf8'));
    expect(Object.keys(state).sort()).toEqual(['connectors', 'revisions', 'version']);

    const again = await openStore(home);
    await again.install(await version(3));
    // v1 ran, v2 and v3 never did: v1 is still the rollback.
    expect(await again.pruneReleases()).not.toContain(v1.digest);
    expect(await releases(home)).toContain(v1.digest);
  });

  it('opens over a damaged record of good releases, reporting it and forgetting the rollbacks', async () => {
    const home = await tempDir();
    const first = await openStore(home);
    const v1 = await first.install(await version(1));
    await first.markGood('echo', v1.digest);
    await writeFile(join(home, 'state', 'good-releases.json'), '{"version": 1, "go');
    await writeFile(join(home, 'state', 'good-releases.json.last-good'), 'not json');
    const again = await openStore(home);
    expect(again.problems.map((problem) => problem.code)).toEqual([
      'TUTTI_ERR_STORE_STATE_CORRUPT',
    ]);
    expect(again.get('echo')?.digest).toBe(v1.digest);
  });
});
