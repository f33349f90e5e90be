import { chmod, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { createSecret } from './secret.js';
import { openStore } from './store.js';
import { cleanUp, CONNECTOR_FIXTURES as FIXTURES, tempDir } from '@tutti/test-kit';

afterEach(cleanUp);

const SECRET = 'sk-test-4f9c2a7e';

async function storeWith(...fixtures: string[]) {
  const home = await tempDir();
  const store = await openStore(home);
  for (const name of fixtures) await store.install(join(FIXTURES, name));
  return { home, store };
}

describe('connector store: credentials', () => {
  it('writes the credential file 0600 in a 0700 folder and reads it back', async () => {
    const { home, store } = await storeWith('keyed');
    expect(await store.setCredential('keyed', SECRET)).toEqual({
      key: 'keyed',
      revision: 2,
      changed: true,
    });
    const file = join(home, 'credentials/keyed.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'credentials'))).mode & 0o777).toBe(0o700);
    const stored = await store.credential('keyed');
    expect(stored?.kind).toBe('api_key');
    expect(stored?.secret.reveal()).toBe(SECRET);
    expect(JSON.parse(await readFile(file, 'utf8')).secret).toBe(SECRET);
  });

  it('keeps the bare secret file for the CLI shim exactly as long as the credential', async () => {
    const { home, store } = await storeWith('keyed');
    const file = store.credentialFile('keyed');
    expect(file).toBe(join(home, 'credentials/keyed.secret'));
    await store.setCredential('keyed', SECRET);
    expect(await readFile(file, 'utf8')).toBe(`${SECRET}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await store.setCredential('keyed', `${SECRET}-2`);
    expect(await readFile(file, 'utf8')).toBe(`${SECRET}-2\n`);
    await store.clearCredential('keyed');
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
    await store.setCredential('keyed', SECRET);
    await store.uninstall('keyed');
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });

  it('puts secret files in line with the credential records when it opens', async () => {
    const { home, store } = await storeWith('keyed');
    await store.setCredential('keyed', SECRET);
    const dir = join(home, 'credentials');
    await rm(join(dir, 'keyed.secret'));
    await writeFile(join(dir, 'gone.secret'), 'left-behind\n', { mode: 0o600 });
    await openStore(home);
    expect(await readFile(join(dir, 'keyed.secret'), 'utf8')).toBe(`${SECRET}\n`);
    await expect(stat(join(dir, 'gone.secret'))).rejects.toThrow(/ENOENT/);
  });

  it('makes auth ready only once a credential of the declared kind is stored', async () => {
    const { store } = await storeWith('keyed', 'echo');
    expect(await store.authReady('echo')).toBe(true);
    expect(await store.authReady('keyed')).toBe(false);
    await store.setCredential('keyed', SECRET);
    expect(await store.authReady('keyed')).toBe(true);
    expect(await store.clearCredential('keyed')).toEqual({
      key: 'keyed',
      revision: 3,
      changed: true,
    });
    expect(await store.authReady('keyed')).toBe(false);
    expect(await store.authReady('remote-docs')).toBe(false);
  });

  it('takes a new revision only when the credential actually changes', async () => {
    const { store } = await storeWith('remote-docs');
    expect((await store.setCredential('remote-docs', SECRET)).revision).toBe(2);
    expect(await store.setCredential('remote-docs', createSecret(SECRET))).toEqual({
      key: 'remote-docs',
      revision: 2,
      changed: false,
    });
    expect((await store.setCredential('remote-docs', `${SECRET}-rotated`)).revision).toBe(3);
    expect(store.get('remote-docs')?.revision).toBe(3);
    expect(await store.clearCredential('remote-docs')).toMatchObject({
      revision: 4,
      changed: true,
    });
    expect(await store.clearCredential('remote-docs')).toMatchObject({
      revision: 4,
      changed: false,
    });
  });

  it('deletes the credential on uninstall', async () => {
    const { home, store } = await storeWith('keyed');
    await store.setCredential('keyed', SECRET);
    await store.uninstall('keyed');
    await expect(stat(join(home, 'credentials/keyed.json'))).rejects.toThrow();
    expect(await store.credential('keyed')).toBeUndefined();
  });

  it('refuses credentials for connectors that are not installed or take none', async () => {
    const { store } = await storeWith('echo');
    const missing = await store.setCredential('keyed', SECRET).catch((e) => e);
    expect(isTuttiError(missing, 'TUTTI_ERR_STORE_NOT_INSTALLED')).toBe(true);
    const none = await store.setCredential('echo', SECRET).catch((e) => e);
    expect(isTuttiError(none, 'TUTTI_ERR_STORE_NO_CREDENTIAL')).toBe(true);
  });

  it('refuses an empty or multi-line secret without repeating it', async () => {
    const { store } = await storeWith('keyed');
    for (const bad of ['', `${SECRET}\nX-Injected: 1`, `${SECRET}\0`]) {
      const error = await store.setCredential('keyed', bad).catch((e) => e);
      expect(isTuttiError(error, 'TUTTI_ERR_STORE_INVALID_CREDENTIAL')).toBe(true);
      expect((error as Error).message).not.toContain(SECRET);
      expect(JSON.stringify((error as { details: unknown }).details)).not.toContain(SECRET);
    }
    expect(await store.credential('keyed')).toBeUndefined();
  });

  it('reports a damaged credential file without quoting its content', async () => {
    const { home, store } = await storeWith('keyed');
    await writeFile(join(home, 'credentials/keyed.json'), `{"secret":"${SECRET}`, { mode: 0o600 });
    const error = await store.credential('keyed').catch((e) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_CREDENTIAL_CORRUPT')).toBe(true);
    expect((error as Error).message).not.toContain(SECRET);
    expect(await store.authReady('keyed')).toBe(false);
    expect((await store.setCredential('keyed', SECRET)).changed).toBe(true);
    expect(await store.authReady('keyed')).toBe(true);
  });

  it('never shows the secret when a credential is logged, serialized or inspected', async () => {
    const { store } = await storeWith('keyed');
    await store.setCredential('keyed', SECRET);
    const stored = await store.credential('keyed');
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(inspect(stored, { depth: 5 })).not.toContain(SECRET);
    expect(`${stored?.secret}`).toBe('[redacted]');
  });

  it('tightens a credentials folder that was left with a wider mode', async () => {
    const { home } = await storeWith();
    await chmod(join(home, 'credentials'), 0o755);
    await openStore(home);
    expect((await stat(join(home, 'credentials'))).mode & 0o777).toBe(0o700);
  });
});
