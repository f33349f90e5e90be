/**
 * The folder of one agent session's own files (a config home, a skills plugin, an
 * instructions file): mode 0700, created on first use, files written 0600, removed when
 * the session ends.
 */
import { chmod, lstat, mkdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';

/** A session's folder. */
export interface SessionFiles {
  /** Absolute path of the folder (it may not exist yet). */
  readonly dir: string;
  /** Creates the folder (0700) and resolves its path. */
  ensure(): Promise<string>;
  /** Writes `content` to `name` inside the folder (0600, atomically); resolves the path. */
  write(name: string, content: string): Promise<string>;
  /**
   * Creates a symbolic link `name` inside the folder pointing at `target` (replacing a link
   * of an earlier run of the same session, kept across a daemon restart); resolves the path.
   */
  link(target: string, name: string): Promise<string>;
  /** Removes the folder and everything in it. Idempotent. */
  remove(): Promise<void>;
}

/** The files of the session whose folder is `dir`. */
export function sessionFiles(dir: string): SessionFiles {
  let made: Promise<string> | undefined;
  const inside = (name: string) => {
    const path = join(dir, name);
    const rel = relative(dir, path);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      throw new TypeError(`"${name}" is not a path inside the session folder`);
    }
    return path;
  };
  const ensure = () => {
    made ??= (async () => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      return dir;
    })();
    return made;
  };
  return {
    dir,
    ensure,
    async write(name, content) {
      const path = inside(name);
      await ensure();
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const next = `${path}.next`;
      await writeFile(next, content, { mode: 0o600 });
      await rename(next, path);
      return path;
    },
    async link(target, name) {
      const path = inside(name);
      await ensure();
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const existing = await lstat(path).catch(() => undefined);
      if (existing?.isSymbolicLink()) await unlink(path);
      await symlink(target, path);
      return path;
    },
    async remove() {
      made = undefined;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
