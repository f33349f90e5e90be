/**
 * Test helpers for the store: temp homes and release folders copied from the fixtures,
 * all removed by {@link cleanUp}. Imported by tests only.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folder of the example connector releases. */
export const FIXTURES = fileURLToPath(
  new URL('../../../test/fixtures/connectors/', import.meta.url),
);

const temps: string[] = [];

/** A new empty temp folder, removed by {@link cleanUp}. */
export async function tempDir(prefix = 'tutti-store-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** A writable copy of the fixture release `name`, optionally with files changed. */
export async function fixtureCopy(
  name: string,
  changes: Record<string, string> = {},
): Promise<string> {
  const dir = join(await tempDir('tutti-release-'), name);
  await cp(join(FIXTURES, name), dir, { recursive: true });
  for (const [path, content] of Object.entries(changes)) await writeFile(join(dir, path), content);
  return dir;
}

/** Removes every temp folder made since the last call. */
export async function cleanUp(): Promise<void> {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
