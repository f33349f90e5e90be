import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError } from '../../errors/index.js';
import { cleanUp, tempDir } from '@tutti/test-kit';
import { homeFormatPath, readHomeFormat, writeHomeFormat } from './format-file.js';

afterEach(cleanUp);

async function refusal(home: string): Promise<unknown> {
  return readHomeFormat(home).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('format.json', () => {
  it('reads no version from a home that has no format file', async () => {
    expect(await readHomeFormat(await tempDir())).toBeUndefined();
  });

  it('writes the version as {"version": n}, 0644 like the other state files, leaving no temp file', async () => {
    const home = await tempDir();
    await writeHomeFormat(home, 2);
    expect(await readHomeFormat(home)).toBe(2);
    expect(JSON.parse(await readFile(homeFormatPath(home), 'utf8'))).toEqual({ version: 2 });
    expect((await stat(homeFormatPath(home))).mode & 0o777).toBe(0o644);
    await writeHomeFormat(home, 3);
    expect(await readHomeFormat(home)).toBe(3);
    expect(await readdir(home)).toEqual(['format.json']);
  });

  it('reads the version of a file a later release wrote with more fields', async () => {
    const home = await tempDir();
    await writeFile(homeFormatPath(home), '{"version": 7, "keychain": "os"}\n');
    expect(await readHomeFormat(home)).toBe(7);
  });

  it.each([
    ['not JSON', '{"version": 2', 'not valid JSON'],
    ['without a version', '{}', '"version" is not a whole number from 1 up'],
    ['with version 0', '{"version": 0}', '"version" is not a whole number from 1 up'],
    ['with a version in quotes', '{"version": "2"}', '"version" is not a whole number from 1 up'],
    ['with a fractional version', '{"version": 2.5}', '"version" is not a whole number from 1 up'],
  ])('refuses a format file %s, naming the file and why', async (_what, text, reason) => {
    const home = await tempDir();
    await writeFile(homeFormatPath(home), text);
    const error = await refusal(home);
    expect(isTuttiError(error, 'TUTTI_ERR_HOME_FORMAT_UNREADABLE')).toBe(true);
    expect((error as Error).message).toContain(`"${homeFormatPath(home)}"`);
    expect((error as Error).message).toContain(`(${reason})`);
  });

  it('refuses a format file it cannot read, with the errno code as the reason', async () => {
    const home = await tempDir();
    await writeHomeFormat(home, 2);
    const file = homeFormatPath(home);
    // A folder where the file should be: reading it fails with EISDIR, as root too.
    await rm(file);
    await mkdir(file);
    const error = await refusal(home);
    expect(isTuttiError(error, 'TUTTI_ERR_HOME_FORMAT_UNREADABLE')).toBe(true);
    expect((error as Error).message).toContain('(EISDIR)');
  });
});
