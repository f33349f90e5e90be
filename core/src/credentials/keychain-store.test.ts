/**
 * The OS keychain store against a real Secret Service (a private bus and gnome-keyring
 * from the test kit): secrets live in the keychain and nowhere under the home, survive a
 * restart, move out of files crash-safely, go with an uninstall, and never cross homes.
 * The keyring binding reads DBUS_SESSION_BUS_ADDRESS when it connects and keeps its
 * connection, so this file points it at the private bus for all its tests.
 */
import { readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, CONNECTOR_FIXTURES as FIXTURES, tempDir } from '@tutti/test-kit';
import { type JoinedSecretService, joinSecretService } from '@tutti/test-kit/secret-service';
import { isTuttiError } from '../errors/index.js';
import { writeCredential } from '../store/credential-file.js';
import { createSecret } from '../store/secret.js';
import { openStore } from '../store/store.js';
import { homeId, keychainItems } from './keychain-items.js';
import { probeKeychain } from './keychain-vault.js';

const SECRET = 'sk-keychain-7d1e55b0c2';
let joined: JoinedSecretService | undefined;

beforeAll(async () => {
  joined = await joinSecretService();
});

afterAll(() => joined?.leave());

afterEach(cleanUp);

/** Every file under `dir` whose bytes contain `text`. */
async function filesHolding(dir: string, text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(text)) found.push(path);
  }
  return found;
}

async function keychainStore(home: string) {
  return openStore(home, { credentialStore: 'keychain' });
}

describe('the OS keychain credential store', () => {
  it('answers the probe with a store, read back and delete', async () => {
    const home = await tempDir();
    expect(await probeKeychain(home)).toEqual({ ok: true });
    const items = await keychainItems(home);
    expect(await items.accounts()).toEqual([]);
  });

  it('keeps a credential in the keychain and no file under the home holds it', async () => {
    const home = await tempDir();
    const store = await keychainStore(home);
    await store.install(join(FIXTURES, 'keyed'));
    expect(store.credentialStore('keyed')).toBeUndefined();
    expect(await store.setCredential('keyed', SECRET)).toMatchObject({ changed: true });
    expect((await store.credential('keyed'))?.secret.reveal()).toBe(SECRET);
    expect(await store.authReady('keyed')).toBe(true);
    expect(store.credentialStore('keyed')).toBe('keychain');
    expect(await filesHolding(home, SECRET)).toEqual([]);
    const record = join(home, 'credentials', 'keyed.json');
    expect(JSON.parse(await readFile(record, 'utf8'))).toEqual({
      version: 2,
      kind: 'api_key',
      store: 'keychain',
      updatedAt: expect.any(String),
    });
    expect((await stat(record)).mode & 0o777).toBe(0o600);
    await expect(stat(join(home, 'credentials', 'keyed.secret'))).rejects.toThrow(/ENOENT/);
    expect(await (await keychainItems(home)).get('keyed', 'secret')).toBe(SECRET);
    // The same value again changes nothing.
    expect(await store.setCredential('keyed', SECRET)).toMatchObject({ changed: false });
  });

  it('reads the credential and the other slots back after a restart', async () => {
    const home = await tempDir();
    const first = await keychainStore(home);
    await first.install(join(FIXTURES, 'keyed'));
    await first.setCredential('keyed', SECRET);
    await first.secrets.set('keyed', 'refresh_token', createSecret('rt-91c0'));
    const second = await keychainStore(home);
    expect((await second.credential('keyed'))?.secret.reveal()).toBe(SECRET);
    expect((await second.secrets.get('keyed', 'refresh_token'))?.reveal()).toBe('rt-91c0');
    expect(second.credentialStore('keyed')).toBe('keychain');
    expect(await second.authReady('keyed')).toBe(true);
    expect(await filesHolding(home, 'rt-91c0')).toEqual([]);
  });

  it('moves file secrets into the keychain, finishing a move a crash cut short', async () => {
    const home = await tempDir();
    const dir = join(home, 'credentials');
    const files = await openStore(home, { credentialStore: 'file' });
    // Never moved: a version 1 record and its .secret.
    await files.secrets.set('fresh', 'secret', createSecret('value-fresh'));
    await files.secrets.set('fresh', 'client_secret', createSecret('value-client'));
    // Cut short after the item was stored and the .secret removed: the record still holds it.
    await writeCredential(dir, 'halfway', 'oauth2', createSecret('value-halfway'));
    await rm(join(dir, 'halfway.secret'));
    const items = await keychainItems(home);
    await items.set('halfway', 'secret', 'value-halfway');
    // Cut short after the item was stored, before anything was removed.
    await writeCredential(dir, 'stored', 'api_key', createSecret('value-stored'));
    await items.set('stored', 'secret', 'value-stored');
    // A version 2 record with a .secret left beside it, whose item is gone: put back first.
    await writeFile(
      join(dir, 'leftover.json'),
      `${JSON.stringify({ version: 2, kind: 'api_key', store: 'keychain', updatedAt: 'x' })}\n`,
      { mode: 0o600 },
    );
    await writeFile(join(dir, 'leftover.secret'), 'value-leftover\n', { mode: 0o600 });
    const before = await readFile(join(dir, 'fresh.json'), 'utf8');
    expect(JSON.parse(before).version).toBe(1);

    const store = await keychainStore(home);
    const values = {
      fresh: 'value-fresh',
      halfway: 'value-halfway',
      stored: 'value-stored',
      leftover: 'value-leftover',
    };
    for (const [key, value] of Object.entries(values)) {
      expect((await store.secrets.get(key, 'secret'))?.reveal()).toBe(value);
      expect(await items.get(key, 'secret')).toBe(value);
      expect(store.credentialStore(key)).toBe('keychain');
      expect(await filesHolding(home, value)).toEqual([]);
    }
    expect((await store.credential('halfway'))?.kind).toBe('oauth2');
    expect((await store.secrets.get('fresh', 'client_secret'))?.reveal()).toBe('value-client');
    expect(await filesHolding(home, 'value-client')).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual([
      'fresh.json',
      'halfway.json',
      'leftover.json',
      'stored.json',
    ]);
    // A second start finds nothing left to move and changes nothing.
    const again = await keychainStore(home);
    expect((await again.credential('fresh'))?.secret.reveal()).toBe('value-fresh');
  });

  it('uninstall deletes every keychain item and file of the connector, and only its own', async () => {
    const home = await tempDir();
    const store = await keychainStore(home);
    await store.install(join(FIXTURES, 'keyed'));
    await store.setCredential('keyed', SECRET);
    await store.secrets.set('keyed', 'refresh_token', createSecret('rt-2b'));
    await store.secrets.set('keyed', 'client_secret', createSecret('cs-3c'));
    await store.secrets.set('keyed-other', 'secret', createSecret('other-4d'));
    const dir = join(home, 'credentials');
    // A file a crash left (keychain mode never writes one) goes too.
    await writeFile(join(dir, 'keyed.refresh_token.secret'), 'stale\n', { mode: 0o600 });
    expect(await store.uninstall('keyed')).toMatchObject({ changed: true });
    const items = await keychainItems(home);
    expect(await items.accounts()).toEqual(['keyed-other/secret']);
    expect(await readdir(dir)).toEqual(['keyed-other.json']);
    expect(store.credentialStore('keyed')).toBeUndefined();
    expect(await store.credential('keyed')).toBeUndefined();
    expect(store.credentialStore('keyed-other')).toBe('keychain');
  });

  it('clears a credential by deleting its item, so nothing reads it any more', async () => {
    const home = await tempDir();
    const store = await keychainStore(home);
    await store.install(join(FIXTURES, 'keyed'));
    await store.setCredential('keyed', SECRET);
    expect(await store.clearCredential('keyed')).toMatchObject({ changed: true });
    expect(await (await keychainItems(home)).get('keyed', 'secret')).toBeUndefined();
    expect(await store.authReady('keyed')).toBe(false);
    expect(store.credentialStore('keyed')).toBeUndefined();
    expect(await readdir(join(home, 'credentials'))).toEqual([]);
    expect(await store.clearCredential('keyed')).toMatchObject({ changed: false });
  });

  it('never lets two homes share an item; a home reached through a link is the same home', async () => {
    const one = await tempDir();
    const two = await tempDir();
    const linked = join(await tempDir(), 'link');
    await symlink(one, linked);
    expect(await homeId(one)).not.toBe(await homeId(two));
    expect(await homeId(linked)).toBe(await homeId(one));
    expect(await homeId(one)).toMatch(/^[0-9a-f]{16}$/);
    const first = await keychainStore(one);
    const second = await keychainStore(two);
    await first.secrets.set('shared', 'secret', createSecret('home-one'));
    await second.secrets.set('shared', 'secret', createSecret('home-two'));
    expect((await first.secrets.get('shared', 'secret'))?.reveal()).toBe('home-one');
    expect((await second.secrets.get('shared', 'secret'))?.reveal()).toBe('home-two');
    await second.secrets.deleteAll('shared');
    expect((await first.secrets.get('shared', 'secret'))?.reveal()).toBe('home-one');
    expect((await keychainItems(one)).service).toBe(`tutti-connector ${await homeId(one)}`);
  });

  it('refuses a value longer than a Windows credential holds, before the keychain sees it', async () => {
    const home = await tempDir();
    const items = await keychainItems(home);
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
    try {
      const error = await items.set('big', 'secret', 'x'.repeat(1281)).catch((e: unknown) => e);
      expect(isTuttiError(error) && error.code).toBe('TUTTI_ERR_CREDENTIAL_TOO_LARGE');
      expect(String((error as Error).message)).not.toContain('xxxx');
      await items.set('big', 'secret', 'y'.repeat(1280));
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    expect(await items.get('big', 'secret')).toBe('y'.repeat(1280));
    expect(await items.accounts()).toEqual(['big/secret']);
    await items.delete('big', 'secret');
  });
});
