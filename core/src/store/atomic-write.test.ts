import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { removeStrayTempFiles, writeFileAtomic } from './atomic-write.js';

/** The fs steps an atomic write took, in order: `[step, path]`. */
const steps = vi.hoisted(() => [] as [string, string][]);

// Passes every call through; a handle's write and sync and every rename are logged, so a
// test can see that the file reaches the disk before it takes the target's name.
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof fs.open = async (path, ...rest) => {
    const handle = await fs.open(path, ...rest);
    const name = String(path);
    const writeFile = handle.writeFile.bind(handle);
    const sync = handle.sync.bind(handle);
    handle.writeFile = (...args) => {
      steps.push(['write', name]);
      return writeFile(...args);
    };
    handle.sync = () => {
      steps.push(['sync', name]);
      return sync();
    };
    return handle;
  };
  const rename: typeof fs.rename = async (from, to) => {
    steps.push(['rename', `${String(from)} -> ${String(to)}`]);
    return fs.rename(from, to);
  };
  return { ...fs, open, rename };
});

let dir: string;

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function temp(): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'tutti-atomic-'));
  return dir;
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('writeFileAtomic', () => {
  it('replaces the file with the given mode and leaves no temp file', async () => {
    const folder = await temp();
    const file = join(folder, 'state.json');
    await writeFile(file, 'old');
    await writeFileAtomic(file, 'new', { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('new');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(folder)).toEqual(['state.json']);
  });

  it('syncs the written file before renaming it over the target, then syncs the folder', async () => {
    const folder = await temp();
    const file = join(folder, 'state.json');
    steps.length = 0;
    await writeFileAtomic(file, 'new');
    const written = steps[0]![1];
    expect(written).toMatch(/\/\.state\.json\.\d+\.[0-9a-f]{12}\.tmp$/);
    expect(steps).toEqual([
      ['write', written],
      ['sync', written],
      ['rename', `${written} -> ${file}`],
      ['sync', folder],
    ]);
  });

  it('leaves the old file whole and no temp file when the write fails', async () => {
    const folder = await temp();
    const file = join(folder, 'state.json');
    await writeFile(file, 'old');
    // A non-empty folder at the target makes the final rename fail after the temp write.
    await mkdir(join(folder, 'target'));
    await writeFile(join(folder, 'target', 'child'), '');
    await expect(writeFileAtomic(join(folder, 'target'), 'new')).rejects.toThrow();
    expect(await readFile(file, 'utf8')).toBe('old');
    expect((await readdir(folder)).sort()).toEqual(['state.json', 'target']);
  });
});

describe('removeStrayTempFiles', () => {
  it('removes temp files of dead writers and keeps those of live ones', async () => {
    const folder = await temp();
    const dead = `.state.json.${deadPid()}.0123456789ab.tmp`;
    const live = `.state.json.${process.pid}.0123456789ab.tmp`;
    await writeFile(join(folder, dead), '{"trunc');
    await writeFile(join(folder, live), '{"half');
    await writeFile(join(folder, 'state.json'), '{}');
    expect(await removeStrayTempFiles(folder)).toEqual([dead]);
    expect((await readdir(folder)).sort()).toEqual([live, 'state.json']);
  });
});
