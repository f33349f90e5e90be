import { lstat, mkdtemp, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionFiles } from './session-files.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('a session folder', () => {
  it('writes private files and refuses a name outside the folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tutti-files-test-'));
    dirs.push(root);
    const files = sessionFiles(join(root, 's'));
    const path = await files.write('home/config.toml', 'x = 1\n');
    expect((await stat(join(root, 's'))).mode & 0o777).toBe(0o700);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await expect(files.write('../escape', 'no')).rejects.toThrow(/not a path inside/);
  });

  it('links again over the link of an earlier run of the same session (a daemon restart)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tutti-files-test-'));
    dirs.push(root);
    await sessionFiles(join(root, 's')).link('/first/target', 'home/skills');
    // The next daemon opens the same folder, kept across the restart.
    const again = sessionFiles(join(root, 's'));
    const path = await again.link('/second/target', 'home/skills');
    expect((await lstat(path)).isSymbolicLink()).toBe(true);
    expect(await readlink(path)).toBe('/second/target');
    await again.remove();
    await expect(stat(join(root, 's'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
