/**
 * Chooses the store of a home's secrets when the connector store opens (`tuttid
 * --credential-store`): `file` keeps them in 0600 files; `keychain` in the OS keychain,
 * and when none answers the probe every store of a secret is refused with
 * TUTTI_ERR_CREDENTIAL_STORE_UNAVAILABLE (reads still find what the files hold, so
 * nothing is lost); `auto` probes once and falls back to the files with one warning that
 * names the reason. The keychain is probed once per start, never per call.
 */
import { fileURLToPath } from 'node:url';
import { TuttiError } from '../errors/index.js';
import { createFileVault } from './file-vault.js';
import type { KeychainItems } from './keychain-items.js';
import { createKeychainVault, probeKeychain, type SecretReader } from './keychain-vault.js';
import type { CredentialStoreKind } from './secret-vault.js';
import type { StoreVault } from './store-vault.js';

/** The `--credential-store` modes. */
export type CredentialStoreMode = 'auto' | 'keychain' | 'file';

/** The modes, for parsing a flag. */
export const CREDENTIAL_STORE_MODES: readonly CredentialStoreMode[] = ['auto', 'keychain', 'file'];

/** The log lines the choice writes (a pino logger fits). */
export interface VaultLogger {
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

/** What {@link openSecretVault} needs. */
export interface OpenVaultOptions {
  readonly home: string;
  readonly credentialsDir: string;
  readonly mode: CredentialStoreMode;
  readonly logger?: VaultLogger;
  /** The keychain-mode shim's reader (default: the node running this and the built reader). */
  readonly reader?: SecretReader;
}

/** Which store was chosen, and why not the keychain when it was not. */
export interface VaultChoice {
  readonly kind: CredentialStoreKind;
  /** `auto` fell back to the files: the probe's reason. */
  readonly fellBack?: string;
  /** `keychain` found none answering: the probe's reason (every store is refused). */
  readonly unavailable?: string;
}

/**
 * The reader a keychain-mode shim runs: `core/dist/credentials/read-secret-cli.js` under
 * the node binary running now (from the sources, as in tests, the built one beside them).
 */
export function defaultSecretReader(): SecretReader {
  const relative = import.meta.url.endsWith('.ts')
    ? '../../dist/credentials/read-secret-cli.js'
    : './read-secret-cli.js';
  return { node: process.execPath, script: fileURLToPath(new URL(relative, import.meta.url)) };
}

/** A vault that reads the files and refuses to store anything: the keychain is missing. */
function refusingVault(dir: string, reason: string): StoreVault {
  const files = createFileVault(dir);
  const refuse = (key: string): Promise<never> =>
    Promise.reject(new TuttiError('TUTTI_ERR_CREDENTIAL_STORE_UNAVAILABLE', { reason, key }));
  return {
    ...files,
    kind: 'keychain',
    set: (key) => refuse(key),
    setCredential: (key) => refuse(key),
  };
}

/**
 * Opens the store of the home's secrets; see the module doc. `items` is there when the
 * keychain answers (for the migration of the file secrets into it).
 */
export async function openSecretVault(
  options: OpenVaultOptions,
): Promise<{ vault: StoreVault; choice: VaultChoice; items?: KeychainItems }> {
  const { home, credentialsDir, mode, logger } = options;
  if (mode === 'file') return { vault: createFileVault(credentialsDir), choice: { kind: 'file' } };
  const probe = await probeKeychain(home);
  if (probe.ok) {
    const reader = options.reader ?? defaultSecretReader();
    const vault = await createKeychainVault(home, credentialsDir, reader);
    return { vault, choice: { kind: 'keychain' }, items: vault.items };
  }
  if (mode === 'keychain') {
    logger?.warn(
      { reason: probe.reason },
      'no OS keychain answers: credentials cannot be stored (--credential-store keychain)',
    );
    return {
      vault: refusingVault(credentialsDir, probe.reason),
      choice: { kind: 'keychain', unavailable: probe.reason },
    };
  }
  logger?.warn(
    { reason: probe.reason },
    `no OS keychain answers (${probe.reason}): credentials are kept in 0600 files under ${credentialsDir}`,
  );
  return {
    vault: createFileVault(credentialsDir),
    choice: { kind: 'file', fellBack: probe.reason },
  };
}
