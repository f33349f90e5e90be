/**
 * Where a connector's secrets are kept: the OS keychain (Secret Service, Keychain,
 * Credential Manager) or 0600 files under `<home>/credentials/`. One item per secret (a
 * Windows credential holds about 2.5 KB, so never a bundle), named by the home and the
 * connector so two homes never share an item. Values are {@link Secret}s and errors never
 * quote one.
 */
import type { Secret } from '../store/secret.js';

/**
 * The secrets one connector can have: `secret` (an API key or a static bearer token set
 * through the credential API), `refresh_token` (of its OAuth grant), `client_secret` (of
 * the OAuth client named by its manifest's `auth.clientId`). Access tokens live in memory.
 */
export type SecretSlot = 'secret' | 'refresh_token' | 'client_secret';

/** Which store holds a home's secrets. */
export type CredentialStoreKind = 'keychain' | 'file';

/** The store of a home's connector secrets; see the module doc. */
export interface SecretVault {
  readonly kind: CredentialStoreKind;
  /** The secret in `slot` of connector `key`, or undefined when none is stored. */
  get(key: string, slot: SecretSlot): Promise<Secret | undefined>;
  /** Stores `value` in `slot` of `key`, replacing what was there; resolves once it is durable. */
  set(key: string, slot: SecretSlot, value: Secret): Promise<void>;
  /** Removes `slot` of `key`; nothing happens when it holds nothing. */
  delete(key: string, slot: SecretSlot): Promise<void>;
  /** Removes every secret and record of `key` (uninstall). */
  deleteAll(key: string): Promise<void>;
}
