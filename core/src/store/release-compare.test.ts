import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { cleanUp, fixtureCopy, tempDir } from '@tutti/test-kit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { findInstalledCopy } from './release-compare.js';
import { openStore } from './store.js';

// Every call passes through; the tests see which folders were listed and which were made.
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return { ...fs, mkdir: vi.fn(fs.mkdir), readdir: vi.fn(fs.readdir) };
});

/** How many staging folders (`releases/.staging-*`) were made since the last clear. */
function stagingFoldersMade(): number {
  return vi
    .mocked(mkdir)
    .mock.calls.filter(([path]) => basename(String(path)).startsWith('.staging-')).length;
}

beforeEach(() => {
  vi.mocked(mkdir).mockClear();
  vi.mocked(readdir).mockClear();
});
afterEach(cleanUp);

/** The echo fixture with a folder, an executable file and a link added, installed. */
async function installed() {
  const source = await fixtureCopy('echo');
  await mkdir(join(source, 'data', 'nested'), { recursive: true });
  await writeFile(join(source, 'data', 'nested', 'table.txt'), 'x'.repeat(200_000));
  await writeFile(join(source, 'data', 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  await symlink('nested/table.txt', join(source, 'data', 'table-link'));
  const store = await openStore(await tempDir());
  const view = await store.install(source);
  vi.mocked(mkdir).mockClear();
  vi.mocked(readdir).mockClear();
  return { source, store, view };
}

/** Writes the manifest of `source` again with another version. */
async function bumpVersion(source: string): Promise<void> {
  const path = join(source, 'tutti-connector.json');
  const manifest = JSON.parse(await readFile(path, 'utf8'));
  await writeFile(path, JSON.stringify({ ...manifest, version: '9.9.9' }));
}

describe('findInstalledCopy', () => {
  it('finds the installed release a folder holds exactly, links and modes included', async () => {
    const { source, store, view } = await installed();
    expect((await findInstalledCopy(source, store.installed()))?.digest).toBe(view.digest);
  });

  const changes: [string, (source: string) => Promise<void>][] = [
    [
      'one byte of a file changed, at the same size',
      (source) => writeFile(join(source, 'data', 'nested', 'table.txt'), `${'x'.repeat(199_999)}y`),
    ],
    ['a file grew', (source) => writeFile(join(source, 'data', 'run.sh'), '#!/bin/sh\n\n')],
    [
      'the execute bit of a file was cleared',
      (source) => chmod(join(source, 'data', 'run.sh'), 0o644),
    ],
    ['a file was added', (source) => writeFile(join(source, 'data', 'extra'), '')],
    ['an empty folder was added', (source) => mkdir(join(source, 'data', 'empty'))],
    ['a file was removed', (source) => rm(join(source, 'data', 'run.sh'))],
    [
      'the text of a link changed',
      async (source) => {
        await rm(join(source, 'data', 'table-link'));
        await symlink('run.sh', join(source, 'data', 'table-link'));
      },
    ],
    [
      'a file was swapped for a link to the same content',
      async (source) => {
        await rm(join(source, 'data', 'run.sh'));
        await symlink('nested/table.txt', join(source, 'data', 'run.sh'));
      },
    ],
    [
      // Opened for reading without O_NONBLOCK, the FIFO would never answer: the test hangs.
      'a file was swapped for a FIFO nobody writes to',
      async (source) => {
        await rm(join(source, 'data', 'run.sh'));
        execFileSync('mkfifo', [join(source, 'data', 'run.sh')]);
      },
    ],
    ['the manifest changed', bumpVersion],
  ];
  for (const [what, change] of changes) {
    it(`finds none once ${what}`, async () => {
      const { source, store } = await installed();
      await change(source);
      expect(await findInstalledCopy(source, store.installed())).toBeUndefined();
    });
  }

  it('lists no folder of a source whose manifest matches no installed release', async () => {
    const { source, store } = await installed();
    await findInstalledCopy(source, store.installed());
    expect(readdir).toHaveBeenCalled();
    vi.mocked(readdir).mockClear();
    await bumpVersion(source);
    expect(await findInstalledCopy(source, store.installed())).toBeUndefined();
    expect(readdir).not.toHaveBeenCalled();
  });

  it('applies the caps of a release as the copy does', async () => {
    const { source, store } = await installed();
    const capped = { limits: { maxEntries: 5 } };
    expect(await findInstalledCopy(source, store.installed(), capped)).toBeUndefined();
    const small = { limits: { maxBytes: 100_000 } };
    expect(await findInstalledCopy(source, store.installed(), small)).toBeUndefined();
  });

  it('stops with the reason of its aborted signal, not as "not the same"', async () => {
    const { source, store } = await installed();
    const reason = new Error('out of time');
    const signal = AbortSignal.abort(reason);
    await expect(findInstalledCopy(source, store.installed(), { signal })).rejects.toBe(reason);
  });

  it('finds none for a path that is no folder, leaving the error to the copy', async () => {
    const { source, store } = await installed();
    expect(await findInstalledCopy(join(source, 'missing'), store.installed())).toBeUndefined();
  });
});

describe('connector store: the same content again', () => {
  it('answers changed: false without making a staging copy', async () => {
    const { source, store, view } = await installed();
    const again = await store.install(source);
    expect(again).toMatchObject({ changed: false, digest: view.digest, revision: view.revision });
    expect(stagingFoldersMade()).toBe(0);
  });

  it('copies and installs a release with one file changed', async () => {
    const { source, store, view } = await installed();
    await writeFile(join(source, 'data', 'nested', 'table.txt'), `${'x'.repeat(199_999)}y`);
    const changed = await store.install(source);
    expect(changed).toMatchObject({ changed: true, previousDigest: view.digest });
    expect(changed.revision).toBe(view.revision + 1);
    expect(stagingFoldersMade()).toBe(1);
  });

  it('installs the same content as new when its key is uninstalled while it is compared', async () => {
    const { source, store, view } = await installed();
    // The uninstall is queued first; the compare's answer is checked in the queue after it.
    const again = store.install(source);
    expect((await store.uninstall('echo')).changed).toBe(true);
    expect(await again).toMatchObject({ changed: true, digest: view.digest, revision: 3 });
    expect(store.get('echo')?.digest).toBe(view.digest);
  });

  it('refuses identical content past a cap lowered since, as the copy does', async () => {
    const { source, store } = await installed();
    const capped = await openStore(store.home, { releaseLimits: { maxEntries: 5 } });
    const error = await capped.install(source).catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_RELEASE_TOO_LARGE')).toBe(true);
  });

  it('gives up on the compare at the install time limit, copying nothing', async () => {
    const { source, store } = await installed();
    await mkdir(join(source, 'many'));
    for (let i = 0; i < 1000; i += 100) {
      const files = Array.from({ length: 100 }, (_, j) => `f${i + j}`);
      await Promise.all(files.map((name) => writeFile(join(source, 'many', name), name)));
    }
    await store.install(source);
    vi.mocked(mkdir).mockClear();
    const hurried = await openStore(store.home, { installTimeoutMs: 5 });
    const error = await hurried.install(source).catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_TIMEOUT')).toBe(true);
    expect(stagingFoldersMade()).toBe(0);
  });

  it('still answers changed: false through the copy when only the form of a link differs', async () => {
    const { source, store, view } = await installed();
    // An absolute link into the release is stored as its relative form: the same digest.
    await rm(join(source, 'data', 'table-link'));
    await symlink(join(source, 'data', 'nested', 'table.txt'), join(source, 'data', 'table-link'));
    expect(await store.install(source)).toMatchObject({ changed: false, digest: view.digest });
    expect(stagingFoldersMade()).toBe(1);
  });
});
