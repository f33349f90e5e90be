/** Fresh tutti homes in the temp folder for one test file, all removed by `removeAll()`. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempHomes {
  /** A new empty folder `<tmp>/<prefix>XXXXXX`. */
  make(): Promise<string>;
  /** Removes every folder made so far (call it in `afterEach`). */
  removeAll(): Promise<void>;
}

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
