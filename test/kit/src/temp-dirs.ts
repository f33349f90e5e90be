/**
 * Temp folders for tests: {@link tempDir} registers each new folder with the kit, and
 * {@link cleanUp} removes every one made since its last call (call it in `afterEach`);
 * {@link tempHomes} keeps its own list, for a test file that wants its homes apart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const temps: string[] = [];

/** A new empty temp folder `<tmp>/<prefix>XXXXXX`, removed by {@link cleanUp}. */
export async function tempDir(prefix = 'tutti-store-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** Removes every temp folder made by {@link tempDir} (and the kit's releases) since the last call. */
export async function cleanUp(): Promise<void> {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Fresh tutti homes in the temp folder for one test file. */
export interface TempHomes {
  /** A new empty folder `<tmp>/<prefix>XXXXXX`. */
  make(): Promise<string>;
  /** Removes every folder made so far (call it in `afterEach`). */
  removeAll(): Promise<void>;
}

/** Temp homes named `<prefix>XXXXXX`, all removed by `removeAll()`. */
export function tempHomes(prefix: string): TempHomes {
  const homes: string[] = [];
  return {
    async make() {
      const home = await mkdtemp(join(tmpdir(), prefix));
      homes.push(home);
      return home;
    },
    async removeAll() {
      await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
    },
  };
}
