/**
 * The OS keychain store of a home's secrets (items named in `keychain-items.ts`). The
 * `<key>.json` record stays in `<home>/credentials/` (version 2: kind and time, no
 * secret) so the store knows a credential's kind without the keychain; no file under the
 * home holds a secret. Reads fall back to the files for what is still there (a secret
 * the migration could not move), so nothing stored before is lost. {@link probeKeychain}
 * tells whether a keychain answers at all.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { TuttiError } from '../errors/index.js';
import {
  checkSecret,
  deleteCredential,
  readRecord,
  secretPath,
  writeKeychainRecord,
} from '../store/credential-file.js';
import { createSecret } from '../store/secret.js';
import { createFileVault, removeKeyFiles, slotPath } from './file-vault.js';
import { failureReason, type KeychainItems, keychainItems } from './keychain-items.js';
import type { SecretSlot } from './secret-vault.js';
import { type HeldSlot, SECRET_SLOTS, type ShimSource, type StoreVault } from './store-vault.js';

/** The program a keychain-mode CLI shim runs to read its credential (see read-secret-cli.ts). */
export interface SecretReader {
  /** Absolute path of the node binary. */
  readonly node: string;
  /** Absolute path of the compiled reader script. */
  readonly script: string;
}

/** The outcome of {@link probeKeychain}. */
export type ProbeResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Whether an OS keychain answers for `home`: stores, reads back and deletes a probe item
 * of random content (a read alone would pass on a store that cannot keep anything).
 */
export async function probeKeychain(home: string, callMs?: number): Promise<ProbeResult> {
  const value = `probe-${randomBytes(12).toString('hex')}`;
  const account = `.probe-${process.pid}`;
  try {
    const items = await keychainItems(home, callMs);
    await items.set(account, 'probe', value);
    const back = await items.get(account, 'probe');
    await items.delete(account, 'probe');
    if (back !== value) return { ok: false, reason: 'the probe item read back differs' };
    return { ok: true };
  } catch (error) {
    const cause = error instanceof TuttiError ? error.details.reason : undefined;
    return { ok: false, reason: failureReason(typeof cause === 'string' ? cause : error, value) };
  }
}

/** Stores `value` in `slot` of `key` and reads it back: KEYCHAIN_FAILED when it differs. */
export async function setVerified(
  items: KeychainItems,
  key: string,
  slot: SecretSlot,
  value: string,
): Promise<void> {
  await items.set(key, slot, value);
  if ((await items.get(key, slot)) !== value) {
    throw new TuttiError('TUTTI_ERR_CREDENTIAL_KEYCHAIN_FAILED', {
      action: 'store',
      slot,
      key,
      reason: 'the item read back differs from what was stored',
    });
  }
}

/** The keychain store of `home`, records in `dir`; CLI shims read through `reader`. */
export async function createKeychainVault(
  home: string,
  dir: string,
  reader: SecretReader,
): Promise<StoreVault & { readonly items: KeychainItems }> {
  const items = await keychainItems(home);
  const files = createFileVault(dir);

  /** Stores a `secret` slot: the item (read back), then no `.secret` file, then the record. */
  async function setSecret(key: string, kind: 'api_key' | 'oauth2', value: string) {
    await setVerified(items, key, 'secret', value);
    await rm(secretPath(dir, key), { force: true });
    await writeKeychainRecord(dir, key, kind);
  }

  const vault: StoreVault & { readonly items: KeychainItems } = {
    kind: 'keychain',
    items,
    async get(key, slot) {
      if (slot === 'secret') {
        const record = await readRecord(dir, key);
        if (record?.store === 'file') return record.secret;
        if (!record) return undefined;
      }
      const value = await items.get(key, slot);
      if (value !== undefined) return createSecret(value);
      return slot === 'secret' ? undefined : files.get(key, slot);
    },
    async set(key, slot, value) {
      checkSecret(key, value);
      if (slot === 'secret') {
        const record = await readRecord(dir, key).catch(() => undefined);
        await setSecret(key, record?.kind ?? 'api_key', value.reveal());
        return;
      }
      await setVerified(items, key, slot, value.reveal());
      await rm(slotPath(dir, key, slot), { force: true });
    },
    async delete(key, slot) {
      await items.delete(key, slot);
      if (slot === 'secret') await deleteCredential(dir, key);
      else await rm(slotPath(dir, key, slot), { force: true });
    },
    async deleteAll(key) {
      for (const slot of SECRET_SLOTS) await items.delete(key, slot);
      await removeKeyFiles(dir, key);
    },
    async setCredential(key, kind, value) {
      checkSecret(key, value);
      await setSecret(key, kind, value.reveal());
    },
    async credential(key) {
      const record = await readRecord(dir, key);
      if (!record) return undefined;
      if (record.store === 'file') return record;
      const value = await items.get(key, 'secret');
      if (value === undefined) return undefined;
      return {
        kind: record.kind,
        updatedAt: record.updatedAt,
        secret: createSecret(value),
        store: 'keychain',
      };
    },
    async clearCredential(key) {
      const item = await items.delete(key, 'secret');
      return (await deleteCredential(dir, key)) || item;
    },
    async held() {
      // Without the list (a keychain failing right after the probe) the records still tell.
      const listed = await items.accounts().catch(() => undefined);
      const accounts = new Set(listed);
      const held: HeldSlot[] = [];
      for (const entry of await files.held()) {
        // A version 2 record counts only while its item is there.
        if (listed && entry.store === 'keychain' && !accounts.has(`${entry.key}/secret`)) continue;
        held.push(entry);
      }
      for (const account of accounts) {
        const [key, slot] = account.split('/');
        if (!key || slot === 'secret' || !SECRET_SLOTS.includes(slot as SecretSlot)) continue;
        held.push({ key, slot: slot as SecretSlot, store: 'keychain' });
      }
      return held;
    },
    shimSource(key): ShimSource {
      return { command: reader.node, args: [reader.script, home, key] };
    },
  };
  return vault;
}
