import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { copyRelease } from './release-copy.js';
import { digestRelease, listReleaseEntries } from './release-files.js';

const temps: string[] = [];

afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tutti-release-'));
  temps.push(dir);
  return dir;
}

/** Writes `files` (path -> content) into `dir` in the given order. */
async function fill(dir: string, files: [string, string][]): Promise<string> {
  for (const [path, content] of files) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

const FILES: [string, string][] = [
  ['tutti-connector.json', '{}'],
  ['bin/run.mjs', 'console.log(1)'],
  ['a-b', 'x'],
  ['a/b', 'y'],
];

describe('release digests', () => {
  it('do not depend on the order files were created in', async () => {
    const one = await fill(await temp(), FILES);
    const two = await fill(await temp(), [...FILES].reverse());
    expect(await digestRelease(one)).toBe(await digestRelease(two));
    expect(await digestRelease(one)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('change when a byte, a path or the execute bit changes', async () => {
    const original = await digestRelease(await fill(await temp(), FILES));
    const byte = await fill(await temp(), [...FILES.slice(0, 3), ['a/b', 'z']]);
    const path = await fill(await temp(), [...FILES.slice(0, 3), ['a/c', 'y']]);
    const mode = await fill(await temp(), FILES);
    await chmod(join(mode, 'bin/run.mjs'), 0o755);
    const digests = [original, ...(await Promise.all([byte, path, mode].map(digestRelease)))];
    expect(new Set(digests).size).toBe(4);
  });

  it('normalize modes like git, so permissions other than execute do not count', async () => {
    const one = await fill(await temp(), FILES);
    const two = await fill(await temp(), FILES);
    await chmod(join(one, 'a-b'), 0o600);
    await chmod(join(two, 'a-b'), 0o664);
    expect(await digestRelease(one)).toBe(await digestRelease(two));
  });

  it('list entries sorted by full path', async () => {
    const dir = await fill(await temp(), FILES);
    expect((await listReleaseEntries(dir)).map((e) => e.path)).toEqual([
      'a',
      'a-b',
      'a/b',
      'bin',
      'bin/run.mjs',
      'tutti-connector.json',
    ]);
  });
});

describe('copyRelease', () => {
  it('copies bytes and modes and returns the digest of the copy', async () => {
    const source = await fill(await temp(), FILES);
    await chmod(join(source, 'bin/run.mjs'), 0o755);
    const target = join(await temp(), 'copy');
    const digest = await copyRelease(source, target);
    expect(digest).toBe(await digestRelease(source));
    expect(digest).toBe(await digestRelease(target));
    expect(await readFile(join(target, 'a/b'), 'utf8')).toBe('y');
    expect((await lstat(join(target, 'bin/run.mjs'))).mode & 0o111).not.toBe(0);
  });

  it('keeps a link inside the release as a relative link, even an absolute one', async () => {
    const source = await fill(await temp(), FILES);
    await symlink(join(source, 'bin/run.mjs'), join(source, 'a/run'));
    await symlink('../a-b', join(source, 'bin/ab'));
    const target = join(await temp(), 'copy');
    await copyRelease(source, target);
    expect(await readlink(join(target, 'a/run'))).toBe('../bin/run.mjs');
    expect(await readlink(join(target, 'bin/ab'))).toBe('../a-b');
    expect(await readFile(join(target, 'a/run'), 'utf8')).toBe('console.log(1)');
  });

  it.each([
    [
      'a link that points outside the release',
      'outside',
      'is a symbolic link that points outside the release',
    ],
    ['a link to nothing', 'missing', 'is a symbolic link to nothing'],
  ])('refuses %s and names it', async (_case, kind, reason) => {
    const outside = await fill(await temp(), [['secret.txt', 'do not copy']]);
    const source = await fill(await temp(), FILES);
    const target = kind === 'outside' ? join(outside, 'secret.txt') : join(source, 'nope');
    await symlink(target, join(source, 'bin/leak'));
    const error = await copyRelease(source, join(await temp(), 'copy')).catch((e: unknown) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_UNSAFE_RELEASE')).toBe(true);
    expect((error as Error).message).toContain(`"bin/leak" ${reason}`);
  });
});
