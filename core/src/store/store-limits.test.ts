import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { createSerialQueue } from './serial-queue.js';
import { openStore } from './store.js';
import { cleanUp, CONNECTOR_FIXTURES as FIXTURES, fixtureCopy, tempDir } from '@tutti/test-kit';

afterEach(cleanUp);

describe('serial queue time limits', () => {
  it('rejects a task that runs past its limit, aborts its signal and runs the next one', async () => {
    const queue = createSerialQueue({ timeoutMs: 20, timeoutError: () => new Error('too slow') });
    let abandoned: AbortSignal | undefined;
    const hung = queue((signal) => {
      abandoned = signal;
      return new Promise<never>(() => {});
    });
    const next = queue(async () => 'next ran');
    await expect(hung).rejects.toThrow('too slow');
    expect(await next).toBe('next ran');
    expect(abandoned?.aborted).toBe(true);
  });
});

describe('connector store: limits and a changing source folder', () => {
  it('refuses a release over the size cap and installs it once the cap is raised', async () => {
    const release = await fixtureCopy('echo');
    await writeFile(join(release, 'payload.bin'), Buffer.alloc(3 * 1024 * 1024));
    const home = await tempDir();
    const capped = await openStore(home, { releaseLimits: { maxBytes: 2 * 1024 * 1024 } });
    const error = await capped.install(release).catch((e: unknown) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_RELEASE_TOO_LARGE')).toBe(true);
    expect(capped.installed()).toEqual([]);
    expect((await readdir(join(home, 'releases'))).filter((n) => !n.startsWith('.'))).toEqual([]);
    const raised = await openStore(home, { releaseLimits: { maxBytes: 4 * 1024 * 1024 } });
    expect((await raised.install(release)).key).toBe('echo');
  });

  it('gives up on a copy past its time limit without holding up other changes', async () => {
    const slow = await fixtureCopy('echo');
    await mkdir(join(slow, 'many'));
    for (let i = 0; i < 3000; i++) await writeFile(join(slow, 'many', `f${i}`), `file ${i}`);
    const home = await tempDir();
    await openStore(home).then((plain) => plain.install(join(FIXTURES, 'keyed')));
    const reopened = await openStore(home, { installTimeoutMs: 5 });
    const installing = reopened.install(slow).catch((e: unknown) => e);
    const credential = reopened.setCredential('keyed', 'sk-while-installing');
    expect((await credential).changed).toBe(true);
    const error = await installing;
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_TIMEOUT')).toBe(true);
    expect((error as Error).message).toContain('the copy of');
    expect(reopened.get('echo')).toBeUndefined();
  });

  it('does not hang on a FIFO in the release, and the store keeps serving', async () => {
    const release = await fixtureCopy('echo');
    execFileSync('mkfifo', [join(release, 'pipe')]);
    const home = await tempDir();
    const store = await openStore(home);
    await store.install(join(FIXTURES, 'keyed'));
    const error = await store.install(release).catch((e: unknown) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_UNSAFE_RELEASE')).toBe(true);
    expect((await store.setCredential('keyed', 'sk-after')).changed).toBe(true);
    expect((await store.uninstall('keyed')).changed).toBe(true);
    const staging = (await readdir(join(home, 'releases'))).filter((n) => n.startsWith('.'));
    expect(staging).toEqual([]);
    await rm(join(release, 'pipe'));
    expect(existsSync(join(release, 'pipe'))).toBe(false);
  });
});
