/**
 * What the connector store needs of a {@link SecretVault} beyond its slots: a connector's
 * credential as a whole (the `secret` slot and the record of its kind), which slots each
 * key holds and where (read once when the store opens), and how a CLI shim reads the
 * credential when it runs. Both stores implement it: `file-vault.ts`, `keychain-vault.ts`.
 */
import type { Credential, CredentialKind } from '../store/credential-file.js';
import type { Secret } from '../store/secret.js';
import type { CredentialStoreKind, SecretSlot, SecretVault } from './secret-vault.js';

/** The slots a key can hold, in the order they are removed (the shim's secret first). */
export const SECRET_SLOTS: readonly SecretSlot[] = ['secret', 'refresh_token', 'client_secret'];

/** A stored credential and which store holds its secret. */
export type StoredCredential = Credential & { readonly store: CredentialStoreKind };

/** One slot held, and where. */
export interface HeldSlot {
  readonly key: string;
  readonly slot: SecretSlot;
  readonly store: CredentialStoreKind;
}

/** How a CLI shim gets a credential when it runs: a 0600 file, or a reader program's stdout. */
export type ShimSource =
  | { readonly file: string }
  | { readonly command: string; readonly args: readonly string[] };

/** A vault the connector store runs on; see the module doc. */
export interface StoreVault extends SecretVault {
  /** Stores `key`'s credential: `value` in its `secret` slot and a record of `kind`. */
  setCredential(key: string, kind: CredentialKind, value: Secret): Promise<void>;
  /** `key`'s credential (record and secret), or undefined when none is stored. */
  credential(key: string): Promise<StoredCredential | undefined>;
  /** Removes `key`'s credential (its secret first); true when one was stored. */
  clearCredential(key: string): Promise<boolean>;
  /** Every slot held now, and where. */
  held(): Promise<HeldSlot[]>;
  /** How the CLI shim of `key` reads its credential at run time. */
  shimSource(key: string): ShimSource;
}
