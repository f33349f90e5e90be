/**
 * Moves the secrets a home keeps in files into the OS keychain, when the store opens on
 * the keychain. Per secret: store it in the keychain and read it back (compare), then
 * remove the file copy. For a credential, the bare `<key>.secret` goes first and the
 * version 1 record (which still holds the secret) is replaced by a version 2 record last:
 * until that last step the file record is the truth and a rerun copies it again, so a
 * crash at any step loses nothing and the next start finishes the job. A `.secret` left
 * beside a version 2 record is removed once the keychain is seen to hold it (put back
 * from the file when it does not). A secret that cannot move (too large for the
 * keychain, a failing item) stays in its file, where the store still reads it.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { isTuttiError } from '../errors/index.js';
import { readRecord, secretPath, writeKeychainRecord } from '../store/credential-file.js';
import { readSlotFile, slotPath } from './file-vault.js';
import type { KeychainItems } from './keychain-items.js';
import { setVerified } from './keychain-vault.js';
import type { SecretSlot } from './secret-vault.js';

/** What a migration did. */
export interface MigrationReport {
  /** `<key>/<slot>` of each secret moved into the keychain. */
  readonly moved: readonly string[];
  /** Those that stayed in their file, and why (never a value). */
  readonly failed: readonly { readonly secret: string; readonly reason: string }[];
}

const OTHER_SLOTS: readonly Exclude<SecretSlot, 'secret'>[] = ['refresh_token', 'client_secret'];

async function moveCredential(items: KeychainItems, dir: string, key: string): Promise<boolean> {
  const record = await readRecord(dir, key);
  if (!record) return false;
  if (record.store === 'file') {
    await setVerified(items, key, 'secret', record.secret.reveal());
    await rm(secretPath(dir, key), { force: true });
    await writeKeychainRecord(dir, key, record.kind, record.updatedAt);
    return true;
  }
  // Version 2 already: only a `.secret` a crash left beside it may remain.
  const bare = await readFile(secretPath(dir, key), 'utf8').catch(() => undefined);
  if (bare === undefined) return false;
  if ((await items.get(key, 'secret')) === undefined) {
    const value = bare.endsWith('\n') ? bare.slice(0, -1) : bare;
    if (value !== '') await setVerified(items, key, 'secret', value);
  }
  await rm(secretPath(dir, key), { force: true });
  return true;
}

async function moveSlot(
  items: KeychainItems,
  dir: string,
  key: string,
  slot: Exclude<SecretSlot, 'secret'>,
): Promise<void> {
  const path = slotPath(dir, key, slot);
  const value = await readSlotFile(path, key);
  if (value) await setVerified(items, key, slot, value.reveal());
  await rm(path, { force: true });
}

/** Moves every file secret in the credentials folder `dir` into `items`; see the module doc. */
export async function migrateToKeychain(
  items: KeychainItems,
  dir: string,
): Promise<MigrationReport> {
  const moved: string[] = [];
  const failed: { secret: string; reason: string }[] = [];
  const attempt = async (secret: string, move: () => Promise<boolean>): Promise<void> => {
    try {
      if (await move()) moved.push(secret);
    } catch (error) {
      failed.push({
        secret,
        reason: isTuttiError(error) ? error.message : 'an unexpected failure',
      });
    }
  };
  const names = (await readdir(dir)).sort();
  for (const name of names) {
    if (name.startsWith('.')) continue;
    if (name.endsWith('.json') && !name.slice(0, -5).includes('.')) {
      const key = name.slice(0, -5);
      await attempt(`${key}/secret`, () => moveCredential(items, dir, key));
      continue;
    }
    for (const slot of OTHER_SLOTS) {
      const suffix = `.${slot}.secret`;
      if (!name.endsWith(suffix)) continue;
      const key = name.slice(0, -suffix.length);
      if (key === '' || key.includes('.')) continue;
      await attempt(`${key}/${slot}`, async () => {
        await moveSlot(items, dir, key, slot);
        return true;
      });
    }
  }
  return { moved, failed };
}
