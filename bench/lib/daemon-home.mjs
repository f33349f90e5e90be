/**
 * Tutti homes for the daemon and CLI benches: connector releases that run the stdio fixture
 * server with N tools, installed into a fresh temp home through the real store, so a
 * `tuttid --home <dir>` started on it finds them installed (and cold).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@tutti/core/internal';

/** The stdio MCP fixture server (it imports the SDK, so it runs from the repository). */
export const STDIO_SERVER = fileURLToPath(
  new URL('../../test/fixtures/upstream/stdio-server.mjs', import.meta.url),
);

/** A temp dir that `remove()` deletes (safe to call twice). */
export async function benchDir(prefix) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Writes `count` releases `bench-<i>` under `parent`, each a stdio server with `tools` tools
 * (run by this Node binary), and returns their folders.
 */
export async function writeStdioReleases(parent, count, tools) {
  const dirs = [];
  for (let i = 0; i < count; i += 1) {
    const key = `bench-${String(i).padStart(3, '0')}`;
    const dir = join(parent, key);
    await mkdir(dir, { recursive: true });
    const manifest = {
      key,
      name: `Bench ${i}`,
      description: `Benchmark connector ${i} with ${tools} tools.`,
      version: '1.0.0',
      mcp: { command: process.execPath, args: [STDIO_SERVER, '--tools', String(tools)] },
    };
    await writeFile(join(dir, 'tutti-connector.json'), JSON.stringify(manifest, null, 2));
    dirs.push(dir);
  }
  return dirs;
}

/** A fresh tutti home (in a temp dir) with every release in `releaseDirs` installed. */
export async function homeWithReleases(releaseDirs) {
  const temp = await benchDir('tutti-bench-home-');
  const home = join(temp.dir, 'home');
  const store = await openStore(home);
  for (const dir of releaseDirs) await store.install(dir);
  return { home, remove: temp.remove };
}
