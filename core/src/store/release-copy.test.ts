import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { copyRelease } from './release-copy.js';

const temps: string[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tutti-copy-'));
  temps.push(dir);
  return dir;
}

const OUTSIDE_SECRET = 'OUTSIDE-SECRET-4b1f';

/** A release whose `a-many/` takes a while to copy, so a change can land mid-copy. */
async function slowRelease(): Promise<{ source: string; outside: string }> {
  const base = await temp();
  const source = join(base, 'release');
  const outside = join(base, 'outside');
  await mkdir(join(source, 'a-many'), { recursive: true });
  await mkdir(join(source, 'z-data'));
  await mkdir(outside);
  await writeFile(join(source, 'tutti-connector.json'), '{}');
  for (let i = 0; i < 3000; i++) await writeFile(join(source, 'a-many', `f${i}`), `file ${i}`);
  await writeFile(join(source, 'z-data', 'passwd'), 'inside the release');
  await writeFile(join(source, 'z-file'), 'a plain file');
  await writeFile(join(outside, 'passwd'), OUTSIDE_SECRET);
  return { source, outside };
}

/** Resolves once the copy into `target` is under way (it has started on `a-many/`). */
async function copyUnderWay(target: string): Promise<void> {
  for (;;) {
    if (existsSync(join(target, 'a-many', 'f1'))) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

async function holdsSecret(dir: string): Promise<boolean> {
  for (const file of await filesUnder(dir)) {
    if ((await readFile(file, 'utf8')).includes(OUTSIDE_SECRET)) return true;
  }
  return false;
}

describe('copyRelease from a folder that changes under it', () => {
  it('never copies through a folder swapped for a symlink to outside mid-copy', async () => {
    const { source, outside } = await slowRelease();
    const target = join(await temp(), 'copy');
    const copying = copyRelease(source, target).catch((error: unknown) => error);
    await copyUnderWay(target);
    await rename(join(source, 'z-data'), join(source, 'z-data.moved'));
    await symlink(outside, join(source, 'z-data'));
    const error = await copying;
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_UNSAFE_RELEASE')).toBe(true);
    expect((error as Error).message).toContain(
      '"z-data" is a symbolic link that points outside the release',
    );
    expect(await holdsSecret(target)).toBe(false);
  });

  it('refuses a file swapped for a FIFO mid-copy at once, without waiting on it', async () => {
    const { source } = await slowRelease();
    const target = join(await temp(), 'copy');
    const copying = copyRelease(source, target).catch((error: unknown) => error);
    await copyUnderWay(target);
    await rm(join(source, 'z-file'));
    execFileSync('mkfifo', [join(source, 'z-file')]);
    const error = await copying;
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_UNSAFE_RELEASE')).toBe(true);
    expect((error as Error).message).toContain('"z-file" is a FIFO, socket or device');
  });

  it.each([
    ['a FIFO', 'fifo'],
    ['a socket', 'socket'],
  ])('refuses %s in the release and names it', async (_what, kind) => {
    const source = await temp();
    await writeFile(join(source, 'tutti-connector.json'), '{}');
    const special = join(source, 'special');
    if (kind === 'fifo') execFileSync('mkfifo', [special]);
    else {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(special, resolve));
    }
    const error = await copyRelease(source, join(await temp(), 'copy')).catch((e: unknown) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_UNSAFE_RELEASE')).toBe(true);
    expect((error as Error).message).toContain('"special" is a');
  });

  it('stops at the size cap and at the entry cap with a clear error', async () => {
    const source = await temp();
    await writeFile(join(source, 'tutti-connector.json'), '{}');
    await writeFile(join(source, 'big-1'), Buffer.alloc(700 * 1024));
    await writeFile(join(source, 'big-2'), Buffer.alloc(700 * 1024));
    const tooBig = await copyRelease(source, join(await temp(), 'copy'), {
      limits: { maxBytes: 1024 * 1024 },
    }).catch((e: unknown) => e);
    expect(isTuttiError(tooBig, 'TUTTI_ERR_STORE_RELEASE_TOO_LARGE')).toBe(true);
    expect((tooBig as Error).message).toContain('more than 1 MiB (reached at "big-2")');
    expect((tooBig as Error).message).toContain('--max-release-mb');
    const tooMany = await copyRelease(source, join(await temp(), 'copy'), {
      limits: { maxEntries: 2 },
    }).catch((e: unknown) => e);
    expect(isTuttiError(tooMany, 'TUTTI_ERR_STORE_RELEASE_TOO_LARGE')).toBe(true);
    expect((tooMany as Error).message).toContain('more than 2 entries');
    const raised = await copyRelease(source, join(await temp(), 'copy'), {
      limits: { maxBytes: 2 * 1024 * 1024 },
    });
    expect(raised).toMatch(/^[0-9a-f]{64}$/);
  });

  it('stops when its signal aborts', async () => {
    const { source } = await slowRelease();
    const controller = new AbortController();
    const target = join(await temp(), 'copy');
    const copying = copyRelease(source, target, { signal: controller.signal }).catch(
      (error: unknown) => error,
    );
    await copyUnderWay(target);
    controller.abort(new Error('stopped on purpose'));
    expect(((await copying) as Error).message).toBe('stopped on purpose');
    // What it wrote is gone: a caller that gave up earlier finds nothing left behind.
    expect(existsSync(target)).toBe(false);
  });

  it('leaves nothing behind when it refuses a release', async () => {
    const source = await temp();
    await writeFile(join(source, 'tutti-connector.json'), '{}');
    await writeFile(join(source, 'big'), Buffer.alloc(64 * 1024));
    await symlink('/etc/passwd', join(source, 'outside'));
    const target = join(await temp(), 'copy');
    const refused = await copyRelease(source, target).catch((e: unknown) => e);
    expect(isTuttiError(refused, 'TUTTI_ERR_STORE_UNSAFE_RELEASE')).toBe(true);
    expect(existsSync(target)).toBe(false);
  });
});
