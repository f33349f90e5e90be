/**
 * Tutti homes for the daemon and CLI benches: connector releases (the test kit's, running
 * the stdio fixture server with N tools) installed into a fresh temp home through the real
 * store, so a `tuttid --home <dir>` started on it finds them installed (and cold).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@tutti/core/internal';
import { writeRelease } from '@tutti/test-kit';

/** A temp folder and its removal. */
export interface BenchDir {
  readonly dir: string;
  remove(): Promise<void>;
}

/** A temp dir that `remove()` deletes (safe to call twice). */
export async function benchDir(prefix: string): Promise<BenchDir> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Writes `count` releases `bench-<i>` under `parent`, each a stdio server with `tools` tools
 * (run by this Node binary), and returns their folders.
 */
export async function writeStdioReleases(
  parent: string,
  count: number,
  tools: number,
): Promise<string[]> {
  const dirs: string[] = [];
  for (let i = 0; i < count; i += 1) {
    dirs.push(
      await writeRelease({
        key: `bench-${String(i).padStart(3, '0')}`,
        name: `Bench ${i}`,
        description: `Benchmark connector ${i} with ${tools} tools.`,
        command: process.execPath,
        serverArgs: ['--tools', String(tools)],
        parent,
      }),
    );
  }
  return dirs;
}

/** A fresh tutti home (in a temp dir) with every release in `releaseDirs` installed. */
export async function homeWithReleases(
  releaseDirs: readonly string[],
): Promise<{ home: string; remove(): Promise<void> }> {
  const temp = await benchDir('tutti-bench-home-');
  const home = join(temp.dir, 'home');
  const store = await openStore(home);
  for (const dir of releaseDirs) await store.install(dir);
  return { home, remove: temp.remove };
}
