/**
 * The credential store where no OS keychain answers (no session bus, or one at a missing
 * socket): `auto` falls back to the files and says so once, `keychain` refuses to store
 * and still reads what the files hold. Its own file (its own process): the keyring
 * binding keeps a bus connection once it has one, and this file must never have one.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanUp, CONNECTOR_FIXTURES as FIXTURES, tempDir } from '@tutti/test-kit';
import { isTuttiError } from '../errors/index.js';
import { createSecret } from '../store/secret.js';
import { openStore } from '../store/store.js';
import { probeKeychain } from './keychain-vault.js';
import { openSecretVault } from './select-vault.js';

const SECRET = 'sk-nokeychain-5be0917';
const savedBus = process.env.DBUS_SESSION_BUS_ADDRESS;

function recordingLogger() {
  const lines: { level: string; details: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    warn: (details: Record<string, unknown>, message: string) =>
      lines.push({ level: 'warn', details, message }),
    info: (details: Record<string, unknown>, message: string) =>
      lines.push({ level: 'info', details, message }),
  };
}

afterEach(cleanUp);
afterAll(() => {
  if (savedBus === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
  else process.env.DBUS_SESSION_BUS_ADDRESS = savedBus;
});

describe.each([
  ['no session bus at all', undefined],
  ['a session bus address whose socket is missing', 'unix:path=/nonexistent/tutti/bus'],
])('the credential store with %s', (_name, address) => {
  beforeEach(() => {
    if (address === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
    else process.env.DBUS_SESSION_BUS_ADDRESS = address;
  });

  it('probes the keychain as missing, with the reason', async () => {
    const started = performance.now();
    const probe = await probeKeychain(await tempDir());
    expect(probe.ok).toBe(false);
    expect(!probe.ok && probe.reason).toMatch(/DBus|dbus|bus/);
    // Missing is answered at once, not after the call bound.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('auto falls back to the 0600 files and says so in one warning', async () => {
    const home = await tempDir();
    const logger = recordingLogger();
    const store = await openStore(home, { credentialStore: 'auto', logger });
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({
      level: 'warn',
      details: { reason: expect.any(String) },
    });
    expect(logger.lines[0]!.message).toContain(String(logger.lines[0]!.details.reason));
    expect(logger.lines[0]!.message).toContain(join(home, 'credentials'));
    expect(store.secrets.kind).toBe('file');
    await store.install(join(FIXTURES, 'keyed'));
    await store.setCredential('keyed', SECRET);
    expect(store.credentialStore('keyed')).toBe('file');
    const file = join(home, 'credentials', 'keyed.secret');
    expect(await readFile(file, 'utf8')).toBe(`${SECRET}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(store.credentialSource('keyed')).toEqual({ file });
    expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
  });

  it('keychain refuses to store with TUTTI_ERR_CREDENTIAL_STORE_UNAVAILABLE and still reads the files', async () => {
    const home = await tempDir();
    const before = await openStore(home, { credentialStore: 'file' });
    await before.install(join(FIXTURES, 'keyed'));
    await before.setCredential('keyed', SECRET);
    const logger = recordingLogger();
    const store = await openStore(home, { credentialStore: 'keychain', logger });
    expect(logger.lines.map((line) => line.level)).toEqual(['warn']);
    expect((await store.credential('keyed'))?.secret.reveal()).toBe(SECRET);
    expect(store.credentialStore('keyed')).toBe('file');
    const refused = await store.setCredential('keyed', `${SECRET}-new`).catch((e: unknown) => e);
    expect(isTuttiError(refused) && refused.code).toBe('TUTTI_ERR_CREDENTIAL_STORE_UNAVAILABLE');
    expect(String((refused as Error).message)).not.toContain(SECRET);
    const slot = await store.secrets
      .set('keyed', 'refresh_token', createSecret('rt-x'))
      .catch((e: unknown) => e);
    expect(isTuttiError(slot) && slot.code).toBe('TUTTI_ERR_CREDENTIAL_STORE_UNAVAILABLE');
    expect((await store.credential('keyed'))?.secret.reveal()).toBe(SECRET);
    // Deleting still works: uninstall leaves nothing.
    await store.uninstall('keyed');
    expect(store.credentialStore('keyed')).toBeUndefined();
    const { choice } = await openSecretVault({
      home,
      credentialsDir: join(home, 'credentials'),
      mode: 'keychain',
    });
    expect(choice).toEqual({ kind: 'keychain', unavailable: expect.any(String) });
  });
});
