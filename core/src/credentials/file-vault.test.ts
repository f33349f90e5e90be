/**
 * The file store of secrets: each slot a 0600 file in the 0700 credentials folder (the
 * `secret` slot in today's record + `.secret` format), `deleteAll` removing exactly the
 * files of its key, and which store holds what. Also: loading core never loads the
 * keyring binding (only a keychain call does).
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, REPO_ROOT, tempDir } from '@tutti/test-kit';
import { ensureCredentialsDir } from '../store/credential-file.js';
import { createSecret } from '../store/secret.js';
import { openStore } from '../store/store.js';
import { createFileVault } from './file-vault.js';

afterEach(cleanUp);

async function vault() {
  const dir = join(await tempDir(), 'credentials');
  await ensureCredentialsDir(dir);
  return { dir, files: createFileVault(dir) };
}

describe('the file store of secrets', () => {
  it('keeps each slot in its own 0600 file, the secret slot in the record and its .secret line', async () => {
    const { dir, files } = await vault();
    await files.set('gh', 'secret', createSecret('s-1'));
    await files.set('gh', 'refresh_token', createSecret('r-1'));
    await files.set('gh', 'client_secret', createSecret('c-1'));
    expect((await readdir(dir)).sort()).toEqual([
      'gh.client_secret.secret',
      'gh.json',
      'gh.refresh_token.secret',
      'gh.secret',
    ]);
    for (const name of await readdir(dir)) {
      expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
    }
    expect(JSON.parse(await readFile(join(dir, 'gh.json'), 'utf8'))).toMatchObject({
      version: 1,
      kind: 'api_key',
      secret: 's-1',
    });
    expect(await readFile(join(dir, 'gh.secret'), 'utf8')).toBe('s-1\n');
    expect(await readFile(join(dir, 'gh.refresh_token.secret'), 'utf8')).toBe('r-1\n');
    expect((await files.get('gh', 'refresh_token'))?.reveal()).toBe('r-1');
    expect((await files.get('gh', 'client_secret'))?.reveal()).toBe('c-1');
    // Setting the secret slot keeps the kind the record had.
    await files.setCredential('gh', 'oauth2', createSecret('s-2'));
    await files.set('gh', 'secret', createSecret('s-3'));
    expect(await files.credential('gh')).toMatchObject({ kind: 'oauth2', store: 'file' });
    // Opening the store puts `.secret` files in line with records: never another slot's file.
    await openStore(join(dir, '..'));
    expect((await files.get('gh', 'refresh_token'))?.reveal()).toBe('r-1');
    await files.delete('gh', 'secret');
    await openStore(join(dir, '..'));
    expect((await files.get('gh', 'client_secret'))?.reveal()).toBe('c-1');
    await files.setCredential('gh', 'oauth2', createSecret('s-3'));
    await files.delete('gh', 'refresh_token');
    expect(await files.get('gh', 'refresh_token')).toBeUndefined();
    expect(await files.held()).toEqual([
      { key: 'gh', slot: 'client_secret', store: 'file' },
      { key: 'gh', slot: 'secret', store: 'file' },
    ]);
  });

  it('deleteAll removes every file of its key and none of a key that starts the same', async () => {
    const { dir, files } = await vault();
    for (const key of ['gh', 'gh-enterprise']) {
      await files.set(key, 'secret', createSecret(`${key}-s`));
      await files.set(key, 'client_secret', createSecret(`${key}-c`));
    }
    await writeFile(join(dir, 'gh.json.123.tmp'), 'partial', { mode: 0o600 });
    await files.deleteAll('gh');
    expect((await readdir(dir)).sort()).toEqual([
      'gh-enterprise.client_secret.secret',
      'gh-enterprise.json',
      'gh-enterprise.secret',
    ]);
    expect(await files.get('gh', 'secret')).toBeUndefined();
  });

  it('refuses an empty value or one with a line break in any slot, naming no value', async () => {
    const { files } = await vault();
    await expect(files.set('gh', 'refresh_token', createSecret(''))).rejects.toThrow(/empty/);
    await expect(files.set('gh', 'client_secret', createSecret('a\nb'))).rejects.toThrow(
      /line break/,
    );
  });

  it('loading core never loads the keyring binding; a keychain call does', () => {
    const script = (call: boolean) => `
      const core = await import('@tutti/core/internal');
      ${call ? "await (await core.keychainItems('/tmp')).get('x', 'secret').catch(() => {});" : ''}
      const objects = process.report.getReport().sharedObjects;
      process.stdout.write(String(objects.some((path) => path.includes('keyring'))));`;
    const run = (call: boolean) =>
      execFileSync(process.execPath, ['--input-type=module', '-e', script(call)], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
      });
    expect(run(false)).toBe('false');
    expect(run(true)).toBe('true');
  });
});
