/**
 * The OS keychain items of one tutti home, over `@napi-rs/keyring` (loaded on first use,
 * never when this module loads: `tutti connector available` and the CLI must not load the
 * native binding). Each secret is one item: service `tutti-connector <homeId>` (homeId:
 * the first 16 hex digits of the sha256 of the home's real path, so two homes never share
 * an item), account `<key>/<slot>`. On Linux the store is pinned to the Secret Service:
 * the binding's default silently falls back to the kernel keyring, whose items do not
 * survive a reboot. Failures are TUTTI_ERR_CREDENTIAL_KEYCHAIN_FAILED with a reason that
 * never quotes a value.
 */
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { TuttiError } from '../errors/index.js';
import type { SecretSlot } from './secret-vault.js';

/** Largest value one Windows Credential Manager item holds (2,560 bytes of UTF-16). */
export const WINDOWS_MAX_CHARS = 1280;

/** Longest one keychain call may take before it counts as failed (a hung prompt, a dead bus). */
export const KEYCHAIN_CALL_MS = 15_000;

type Keyring = typeof import('@napi-rs/keyring');
let keyring: Promise<Keyring> | undefined;

function loadKeyring(): Promise<Keyring> {
  keyring ??= import('@napi-rs/keyring');
  return keyring;
}

/** The id of `home` in its items' service: 16 hex digits of the sha256 of its real path. */
export async function homeId(home: string): Promise<string> {
  const real = await realpath(home).catch(() => resolve(home));
  return createHash('sha256').update(real).digest('hex').slice(0, 16);
}

/** The keychain service name of the home whose id is `id`. */
export function keychainService(id: string): string {
  return `tutti-connector ${id}`;
}

/** The account name of `slot` of connector `key`. */
export function keychainAccount(key: string, slot: SecretSlot | string): string {
  return `${key}/${slot}`;
}

/**
 * The reason of a keyring failure, cut short and with `value` (when given) blanked out:
 * the platform's message names the bus or the store, but nothing here trusts that.
 */
export function failureReason(error: unknown, value?: string): string {
  let text = error instanceof Error ? error.message : String(error);
  if (value) text = text.split(value).join('[redacted]');
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 240 ? `${text.slice(0, 240)}...` : text || 'unknown failure';
}

/** What one item operation is, for the error message ("failed to {action} the {slot}"). */
type Action = 'store' | 'read' | 'delete';

/** The items of one home. */
export interface KeychainItems {
  readonly service: string;
  get(key: string, slot: string): Promise<string | undefined>;
  set(key: string, slot: string, value: string): Promise<void>;
  /** True when an item was there. */
  delete(key: string, slot: string): Promise<boolean>;
  /** Every account of the home's service (`<key>/<slot>`), values not kept. */
  accounts(): Promise<string[]>;
}

async function bounded<T>(what: () => Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([what(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The keychain items of `home` (the binding is loaded on the first call). */
export async function keychainItems(
  home: string,
  callMs = KEYCHAIN_CALL_MS,
): Promise<KeychainItems> {
  const service = keychainService(await homeId(home));
  const options =
    process.platform === 'linux' ? { linux: { store: 'secret-service' as const } } : {};
  async function call<T>(
    action: Action,
    key: string,
    slot: string,
    run: (entry: InstanceType<Keyring['AsyncEntry']>) => Promise<T>,
    value?: string,
  ): Promise<T> {
    try {
      const { AsyncEntry } = await loadKeyring();
      return await bounded(
        () => run(new AsyncEntry(service, keychainAccount(key, slot), options)),
        callMs,
      );
    } catch (error) {
      throw new TuttiError('TUTTI_ERR_CREDENTIAL_KEYCHAIN_FAILED', {
        action,
        slot,
        key,
        reason: failureReason(error, value),
      });
    }
  }
  return {
    service,
    get: (key, slot) =>
      call('read', key, slot, async (entry) => (await entry.getPassword()) ?? undefined),
    set: (key, slot, value) => {
      if (process.platform === 'win32' && value.length > WINDOWS_MAX_CHARS) {
        return Promise.reject(
          new TuttiError('TUTTI_ERR_CREDENTIAL_TOO_LARGE', {
            slot,
            key,
            length: value.length,
            limit: WINDOWS_MAX_CHARS,
          }),
        );
      }
      return call('store', key, slot, (entry) => entry.setPassword(value), value);
    },
    delete: (key, slot) => call('delete', key, slot, (entry) => entry.deleteCredential()),
    accounts: async () => {
      try {
        const { findCredentialsAsync } = await loadKeyring();
        const found = await bounded(() => findCredentialsAsync(service), callMs);
        return found.map((credential) => credential.account);
      } catch (error) {
        throw new TuttiError('TUTTI_ERR_CREDENTIAL_KEYCHAIN_FAILED', {
          action: 'read',
          slot: 'secrets',
          key: '*',
          reason: failureReason(error),
        });
      }
    },
  };
}
