import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError, type TuttiError } from '../errors/index.js';
import { openReleaseSource } from './release-source.js';
import { cleanUp, tempDir } from '@tutti/test-kit';

afterEach(cleanUp);

/** The TuttiError `openReleaseSource(path)` rejects with. */
async function refusal(path: string): Promise<TuttiError> {
  const error = await openReleaseSource(path).then(
    async (opened) => {
      await opened.handle.close();
      return undefined;
    },
    (caught: unknown) => caught,
  );
  if (!isTuttiError(error)) throw new Error(`expected a TuttiError, got ${String(error)}`);
  return error;
}

describe('openReleaseSource', () => {
  it('opens a folder, through a link to it, at its real path', async () => {
    const base = await tempDir();
    await mkdir(join(base, 'release'));
    await symlink(join(base, 'release'), join(base, 'current'));
    const opened = await openReleaseSource(join(base, 'current'));
    expect(opened.root).toBe(join(base, 'release'));
    expect((await opened.handle.stat()).isDirectory()).toBe(true);
    await opened.handle.close();
  });

  it("refuses a missing path, a file and a path below a file as the user's mistake (400)", async () => {
    const base = await tempDir();
    const file = join(base, 'file');
    await writeFile(file, 'x');

    const missing = await refusal(join(base, 'missing'));
    expect(missing.code).toBe('TUTTI_ERR_STORE_RELEASE_NOT_FOUND');
    expect(missing.status).toBe(400);
    expect(missing.details).toMatchObject({ reason: 'nothing is at that path' });

    const asFile = await refusal(file);
    expect(asFile.code).toBe('TUTTI_ERR_STORE_RELEASE_NOT_A_FOLDER');
    expect(asFile.details).toMatchObject({ source: file, what: 'a file' });

    const below = await refusal(join(file, 'release'));
    expect(below.code).toBe('TUTTI_ERR_STORE_RELEASE_NOT_FOUND');
    expect(below.message).toContain(`"${file}" in its path is not a folder`);
  });

  it('refuses a FIFO, a device and a link loop without opening them for reading', async () => {
    const base = await tempDir();
    const fifo = join(base, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect((await refusal(fifo)).details).toMatchObject({ what: 'a FIFO' });
    expect((await refusal('/dev/null')).details).toMatchObject({ what: 'a device' });

    await symlink(join(base, 'b'), join(base, 'a'));
    await symlink(join(base, 'a'), join(base, 'b'));
    const loop = await refusal(join(base, 'a'));
    expect(loop.code).toBe('TUTTI_ERR_STORE_RELEASE_NOT_FOUND');
    expect(loop.details).toMatchObject({ reason: 'its path loops through symbolic links' });
  });
});
