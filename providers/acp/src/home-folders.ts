/**
 * The folders along a path of the session home made the session's own before it writes
 * there: a folder linked from the user's folder (`replaces` links each entry) becomes a real
 * folder of the home whose entries are linked one by one, so the agent still sees all of
 * them, and a write below it lands in the home, never in the user's folder.
 */
import { lstat, mkdir, readdir, readlink, symlink, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Makes every folder of `home` along `path` (relative to it; the last segment is the entry
 * itself and is left as it is) a real folder. False when one of them is a file.
 */
export async function ownFolders(home: string, path: string): Promise<boolean> {
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.');
  let folder = home;
  for (const segment of segments.slice(0, -1)) {
    folder = join(folder, segment);
    const stat = await lstat(folder).catch(() => undefined);
    if (stat?.isDirectory()) continue;
    if (!stat) {
      await mkdir(folder, { mode: 0o700 });
      continue;
    }
    if (!stat.isSymbolicLink()) return false;
    const target = resolve(dirname(folder), await readlink(folder));
    await unlink(folder);
    await mkdir(folder, { mode: 0o700 });
    for (const name of await readdir(target).catch(() => [] as string[])) {
      await symlink(join(target, name), join(folder, name));
    }
  }
  return true;
}
