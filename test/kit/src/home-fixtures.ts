/**
 * The home's layout in tests: copies of the homes kept in the kit's `fixtures/homes/`
 * (each made by an earlier release's own daemon) with the modes git does not keep put
 * back, what that daemon served from each, and a snapshot of a home's files to tell
 * whether anything changed.
 */
import { createHash } from 'node:crypto';
import { chmod, cp, lstat, mkdir, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { HOME_FIXTURES as HOMES } from './paths.js';
import { tempDir } from './temp-dirs.js';

interface EntryMode {
  readonly type: 'dir' | 'file';
  /** Octal permission bits, e.g. "600". */
  readonly mode: string;
}

/** What the daemon that made a home fixture served from it. */
export interface ServedByHome {
  readonly connectors: readonly { key: string; state: string; toolCount: number }[];
  /** Names of the tools of `tools/list`, sorted. */
  readonly tools: readonly string[];
}

/**
 * A writable copy of the home fixture of layout `version` in a new temp folder (removed by
 * `cleanUp`), with its empty folders and the modes of all its entries as the daemon that
 * made it left them.
 */
export async function copyHomeFixture(version: number): Promise<string> {
  const fixture = join(HOMES, `v${version}`);
  const home = join(await tempDir('tutti-home-fixture-'), 'home');
  await cp(join(fixture, 'home'), home, { recursive: true });
  const modes = JSON.parse(await readFile(join(fixture, 'modes.json'), 'utf8')) as Record<
    string,
    EntryMode
  >;
  for (const [path, { type, mode }] of Object.entries(modes)) {
    if (type === 'dir') await mkdir(join(home, path), { recursive: true });
    await chmod(join(home, path), Number.parseInt(mode, 8));
  }
  return home;
}

/** What the daemon that made the home fixture of layout `version` served from it. */
export async function servedByHomeFixture(version: number): Promise<ServedByHome> {
  return JSON.parse(
    await readFile(join(HOMES, `v${version}`, 'served.json'), 'utf8'),
  ) as ServedByHome;
}

/**
 * Every folder and file under `home` (relative path) with its mode and, for a file, the
 * sha256 of its content: equal snapshots mean nothing in the home changed.
 */
export async function homeSnapshot(home: string): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const mode = ((await lstat(path)).mode & 0o777).toString(8);
      if (entry.isDirectory()) {
        snapshot[`${relative(home, path)}/`] = mode;
        await walk(path);
      } else {
        const digest = createHash('sha256')
          .update(await readFile(path))
          .digest('hex');
        snapshot[relative(home, path)] = `${mode} ${digest}`;
      }
    }
  };
  await walk(home);
  return snapshot;
}
