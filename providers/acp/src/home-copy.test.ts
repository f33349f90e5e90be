import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyUserEntries } from './home-copy.js';

let root: string;
let user: string;
let home: string;
let warnings: string[];
const logger = {
  warn: (_fields: Record<string, unknown>, message: string) => warnings.push(message),
};

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tutti-home-copy-'));
  user = join(root, 'user');
  home = join(root, 'session', 'home');
  await mkdir(user);
  await mkdir(home, { recursive: true });
  warnings = [];
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('copying declared entries of the user folder into the session home', () => {
  it('copies files (0600) and folders whole (0700), and skips a missing entry silently', async () => {
    await writeFile(join(user, 'config.yaml'), 'model: x\n', { mode: 0o644 });
    await mkdir(join(user, 'profiles', 'work'), { recursive: true });
    await writeFile(join(user, 'profiles', 'work', 'profile.toml'), 'name = "work"\n');
    const copied = await copyUserEntries(
      user,
      home,
      ['config.yaml', 'profiles/', 'absent.yaml'],
      logger,
    );
    expect(copied).toEqual(['config.yaml', 'profiles']);
    expect(await readFile(join(home, 'config.yaml'), 'utf8')).toBe('model: x\n');
    expect((await lstat(join(home, 'config.yaml'))).isFile()).toBe(true);
    expect(await mode(join(home, 'config.yaml'))).toBe(0o600);
    expect(await mode(join(home, 'profiles', 'work'))).toBe(0o700);
    expect(await readFile(join(home, 'profiles', 'work', 'profile.toml'), 'utf8')).toBe(
      'name = "work"\n',
    );
    expect(warnings).toEqual([]);
  });

  it('never follows a symbolic link out of the user folder: an entry, a folder on its way, or one inside a copied folder', async () => {
    const outside = join(root, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'private.yaml'), 'not the agent config\n');
    await symlink(join(outside, 'private.yaml'), join(user, 'config.yaml'));
    await symlink(outside, join(user, 'linked'));
    await mkdir(join(user, 'profiles'));
    await writeFile(join(user, 'profiles', 'a.toml'), 'a = 1\n');
    await symlink(join(outside, 'private.yaml'), join(user, 'profiles', 'b.toml'));
    const copied = await copyUserEntries(
      user,
      home,
      ['config.yaml', 'linked/private.yaml', 'profiles'],
      logger,
    );
    expect(copied).toEqual(['profiles']);
    expect(await lstat(join(home, 'config.yaml')).catch(() => undefined)).toBeUndefined();
    expect(await lstat(join(home, 'linked')).catch(() => undefined)).toBeUndefined();
    expect(await readFile(join(home, 'profiles', 'a.toml'), 'utf8')).toBe('a = 1\n');
    expect(await lstat(join(home, 'profiles', 'b.toml')).catch(() => undefined)).toBeUndefined();
    expect(warnings).toHaveLength(3);
    expect(warnings.join('\n')).toContain('"config.yaml" was not copied into the session home');
    expect(warnings.join('\n')).toContain('"profiles/b.toml" was not copied');
  });

  it('never copies the user folder itself, nor a path out of it', async () => {
    await writeFile(join(user, 'config.yaml'), 'a: 1\n');
    await writeFile(join(home, 'kept.txt'), 'the home stays\n');
    expect(await copyUserEntries(user, home, ['.', './', '../user/config.yaml'], logger)).toEqual(
      [],
    );
    expect(await readFile(join(home, 'kept.txt'), 'utf8')).toBe('the home stays\n');
    expect(warnings).toHaveLength(3);
  });

  it('skips a file of a copied folder whose name looks like a credential', async () => {
    await mkdir(join(user, 'profiles'));
    await writeFile(join(user, 'profiles', 'work.toml'), 'w = 1\n');
    await writeFile(join(user, 'profiles', 'oauth_creds.json'), '{"refresh":"secret"}');
    await copyUserEntries(user, home, ['profiles'], logger);
    expect(await readFile(join(home, 'profiles', 'work.toml'), 'utf8')).toBe('w = 1\n');
    expect(await lstat(join(home, 'profiles', 'oauth_creds.json')).catch(() => undefined)).toBe(
      undefined,
    );
    expect(warnings).toEqual([
      'home.copy: "profiles/oauth_creds.json" was not copied into the session home: its name looks like a credential (credentials are linked, never copied)',
    ]);
  });

  it('skips a file over the size limit and what passes the total, with a warning each', async () => {
    await writeFile(join(user, 'big.yaml'), 'x'.repeat(200));
    await writeFile(join(user, 'a.yaml'), 'a'.repeat(60));
    await writeFile(join(user, 'b.yaml'), 'b'.repeat(60));
    const limits = { fileBytes: 100, totalBytes: 100, entries: 10 };
    const copied = await copyUserEntries(
      user,
      home,
      ['big.yaml', 'a.yaml', 'b.yaml'],
      logger,
      limits,
    );
    expect(await readFile(join(home, 'a.yaml'), 'utf8')).toBe('a'.repeat(60));
    expect(await lstat(join(home, 'big.yaml')).catch(() => undefined)).toBeUndefined();
    expect(await lstat(join(home, 'b.yaml')).catch(() => undefined)).toBeUndefined();
    expect(copied).toContain('a.yaml');
    expect(warnings).toEqual([
      'home.copy: "big.yaml" was not copied into the session home: it is larger than 100 bytes',
      'home.copy: "b.yaml" was not copied into the session home: the copies of the home would pass 100 bytes',
    ]);
  });

  it('replaces a link to the user folder by a real folder before copying into it, leaving the user folder as it was', async () => {
    await mkdir(join(user, 'conf'));
    await writeFile(join(user, 'conf', 'app.yaml'), 'app: 1\n');
    await writeFile(join(user, 'conf', 'other.yaml'), 'other: 1\n');
    // A `replaces` home links each entry of the user folder first.
    await symlink(join(user, 'conf'), join(home, 'conf'));
    await copyUserEntries(user, home, ['conf/app.yaml'], logger);
    expect((await lstat(join(home, 'conf'))).isDirectory()).toBe(true);
    expect((await lstat(join(home, 'conf', 'app.yaml'))).isFile()).toBe(true);
    expect((await lstat(join(home, 'conf', 'other.yaml'))).isSymbolicLink()).toBe(true);
    await writeFile(join(home, 'conf', 'app.yaml'), 'app: changed by the session\n');
    expect(await readFile(join(user, 'conf', 'app.yaml'), 'utf8')).toBe('app: 1\n');
  });

  it('replaces what an earlier start of the session left, without touching the user folder', async () => {
    await writeFile(join(user, 'config.yaml'), 'fresh: 1\n');
    await symlink(join(user, 'config.yaml'), join(home, 'config.yaml'));
    await copyUserEntries(user, home, ['config.yaml'], logger);
    expect((await lstat(join(home, 'config.yaml'))).isFile()).toBe(true);
    expect(await readFile(join(user, 'config.yaml'), 'utf8')).toBe('fresh: 1\n');
  });
});
