/**
 * The file store of a home's secrets: 0600 files in `<home>/credentials/` (mode 0700) and
 * nowhere else. The `secret` slot keeps the format of `store/credential-file.ts` (the
 * `<key>.json` record holding it, and `<key>.secret`, the bare line the CLI shim reads);
 * the other slots are `<key>.<slot>.secret` (0600, the bare value and a newline, written
 * atomically). Connector keys hold no dot, so `<key>.*` are exactly the files of `key`.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import {
  checkSecret,
  deleteCredential,
  readRecord,
  secretPath,
  writeCredential,
} from '../store/credential-file.js';
import { createSecret, type Secret } from '../store/secret.js';
import type { SecretSlot } from './secret-vault.js';
import { type HeldSlot, SECRET_SLOTS, type StoreVault } from './store-vault.js';

/** Path of the file of `slot` (other than `secret`) of `key`. */
export function slotPath(dir: string, key: string, slot: Exclude<SecretSlot, 'secret'>): string {
  return join(dir, `${key}.${slot}.secret`);
}

/** The value of a slot file, or undefined when there is none. */
export async function readSlotFile(path: string, key: string): Promise<Secret | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new TuttiError('TUTTI_ERR_STORE_CREDENTIAL_CORRUPT', {
      key,
      reason: code ?? 'read failed',
    });
  }
  const value = text.endsWith('\n') ? text.slice(0, -1) : text;
  return value === '' ? undefined : createSecret(value);
}

/**
 * Removes every file of `key` in `dir`: its `.secret` (what the shim reads) first, the
 * other slot files next, its record last.
 */
export async function removeKeyFiles(dir: string, key: string): Promise<void> {
  await rm(secretPath(dir, key), { force: true });
  const names = await readdir(dir).catch(() => [] as string[]);
  const mine = names.filter((name) => name.startsWith(`${key}.`));
  const record = `${key}.json`;
  for (const name of mine.filter((name) => name !== record)) {
    await rm(join(dir, name), { force: true });
  }
  await rm(join(dir, record), { force: true });
}

/** The file store over the credentials folder `dir` (created by the store). */
export function createFileVault(dir: string): StoreVault {
  const vault: StoreVault = {
    kind: 'file',
    async get(key, slot) {
      if (slot === 'secret') {
        const record = await readRecord(dir, key);
        return record?.store === 'file' ? record.secret : undefined;
      }
      return readSlotFile(slotPath(dir, key, slot), key);
    },
    async set(key, slot, value) {
      checkSecret(key, value);
      if (slot === 'secret') {
        const record = await readRecord(dir, key).catch(() => undefined);
        await writeCredential(dir, key, record?.kind ?? 'api_key', value);
        return;
      }
      await writeFileAtomic(slotPath(dir, key, slot), `${value.reveal()}\n`, { mode: 0o600 });
    },
    async delete(key, slot) {
      if (slot === 'secret') await deleteCredential(dir, key);
      else await rm(slotPath(dir, key, slot), { force: true });
    },
    deleteAll: (key) => removeKeyFiles(dir, key),
    async setCredential(key, kind, value) {
      checkSecret(key, value);
      await writeCredential(dir, key, kind, value);
    },
    async credential(key) {
      const record = await readRecord(dir, key);
      return record?.store === 'file' ? record : undefined;
    },
    clearCredential: (key) => deleteCredential(dir, key),
    held: () => heldFiles(dir),
    shimSource: (key) => ({ file: secretPath(dir, key) }),
  };
  return vault;
}

/**
 * The slots held in files in `dir`, and the `secret` slots whose record says the OS
 * keychain holds them (what a home that ran on the keychain shows in the file store).
 */
export async function heldFiles(dir: string): Promise<HeldSlot[]> {
  const held: HeldSlot[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (name.startsWith('.')) continue;
    const [key, ...rest] = name.split('.');
    if (!key) continue;
    const tail = rest.join('.');
    if (tail === 'json') {
      const record = await readRecord(dir, key).catch(() => undefined);
      if (record) held.push({ key, slot: 'secret', store: record.store });
      continue;
    }
    const slot = SECRET_SLOTS.find((s) => s !== 'secret' && tail === `${s}.secret`);
    if (slot) held.push({ key, slot, store: 'file' });
  }
  return held;
}
