/** Public shapes of the connector store: what the reconciler, CLI and providers rely on. */
import type { CredentialStoreKind, SecretVault } from '../credentials/secret-vault.js';
import type { CredentialStoreMode, VaultLogger } from '../credentials/select-vault.js';
import type { SecretReader } from '../credentials/keychain-vault.js';
import type { ShimSource } from '../credentials/store-vault.js';
import type { TuttiError } from '../errors/index.js';
import type { ConnectorManifest, ResolvedRelease } from '../manifest/index.js';
import type { Credential } from './credential-file.js';
import type { ReleaseLimits } from './release-copy.js';
import type { Secret } from './secret.js';

/** One installed connector: its manifest and immutable, content-addressed release. */
export interface InstalledConnector {
  readonly key: string;
  readonly manifest: ConnectorManifest;
  /** Absolute folder of the installed release, `<home>/releases/<digest>`. */
  readonly releaseDir: string;
  /** sha256 of the release's contents. */
  readonly digest: string;
  /** The key's current revision: the registry generation to commit it at. */
  readonly revision: number;
  /** ISO time this release was installed. */
  readonly installedAt: string;
  /** Commands and arguments resolved against `releaseDir`. */
  readonly paths: ResolvedRelease;
  /** Absolute skills folder when it holds at least one `<skill>/SKILL.md`. */
  readonly skillsDir?: string;
  /** Names of the release's skills (folders holding a SKILL.md), sorted. */
  readonly skills: readonly string[];
}

/** Outcome of {@link ConnectorStore.install}. */
export interface InstallResult extends InstalledConnector {
  /** False when this exact release was already installed (nothing changed, no new revision). */
  readonly changed: boolean;
  /** Digest of the release it replaced, on an upgrade. */
  readonly previousDigest?: string;
}

/** Outcome of a change that may take a new revision (uninstall, credential changes). */
export interface RevisionChange {
  readonly key: string;
  /** The key's revision after the call (a new one when `changed`). */
  readonly revision: number;
  readonly changed: boolean;
}

/** Options of `openStore`. */
export interface StoreOptions {
  /** Told about each problem the store recovered from (also kept in `problems`). */
  readonly onProblem?: (problem: TuttiError) => void;
  /** Caps on one release (default 256 MiB of files, 100,000 entries). */
  readonly releaseLimits?: Partial<ReleaseLimits>;
  /** Longest the copy of one release may take, in ms (default 120 s). */
  readonly installTimeoutMs?: number;
  /** Longest one store change may hold the store, in ms (default 30 s). */
  readonly operationTimeoutMs?: number;
  /**
   * Where secrets are kept (docs/credential-store.md): `file` (default) 0600 files under
   * `<home>/credentials/`, `keychain` the OS keychain, `auto` the keychain when one answers.
   */
  readonly credentialStore?: CredentialStoreMode;
  /** Told which store was chosen, of a fallback and of the keychain migration. */
  readonly logger?: VaultLogger;
  /** The program a keychain-mode CLI shim runs to read its credential (default: the built one). */
  readonly secretReader?: SecretReader;
}

/** The connector store under one tutti home. Writes are serialized within the process. */
export interface ConnectorStore {
  /** Absolute home folder. */
  readonly home: string;
  /** Problems recovered from while opening (restored state, unreadable releases). */
  readonly problems: readonly TuttiError[];
  /**
   * The store of every connector secret (the credential API's `secret`, an OAuth grant's
   * `refresh_token`, an OAuth client's `client_secret`): the OS keychain or 0600 files.
   */
  readonly secrets: SecretVault;
  /**
   * Copies the release folder into the store and installs it under its manifest key.
   * Same content as installed: no change, recognised in place without a copy. New
   * content: an upgrade with a new revision.
   */
  install(releaseDir: string): Promise<InstallResult>;
  /** Removes `key` and its credential (new revision); unchanged when not installed. */
  uninstall(key: string): Promise<RevisionChange>;
  /** Every installed connector, sorted by key. */
  installed(): readonly InstalledConnector[];
  /** The installed connector `key`, or undefined. */
  get(key: string): InstalledConnector | undefined;
  /** Stores `key`'s credential (see {@link secrets}); a different value takes a new revision. */
  setCredential(key: string, secret: string | Secret): Promise<RevisionChange>;
  /** Deletes `key`'s credential; when one existed, takes a new revision. */
  clearCredential(key: string): Promise<RevisionChange>;
  /** `key`'s stored credential, or undefined. */
  credential(key: string): Promise<Credential | undefined>;
  /**
   * Absolute path of the 0600 file that holds `key`'s bare secret while a credential is
   * stored (deleted with it); CLI shims read it when they run.
   */
  credentialFile(key: string): string;
  /**
   * How `key`'s CLI shim gets its credential when it runs: the 0600 file of
   * {@link credentialFile} (file store), or the stdout of a reader program (keychain).
   */
  credentialSource(key: string): ShimSource;
  /**
   * Which store holds `key`'s credential (its `secret`, else another slot); undefined
   * when none is stored.
   */
  credentialStore(key: string): CredentialStoreKind | undefined;
  /** True when `key` is installed and needs no credential or has one of its auth kind. */
  authReady(key: string): Promise<boolean>;
  /** Takes and persists a new revision for `key` (e.g. to restart a crashed upstream). */
  nextRevision(key: string): Promise<number>;
  /** The last revision taken for `key`; 0 when none ever was. */
  revision(key: string): number;
  /**
   * Records that release `digest` of `key` ran (became ready): the newest two are kept,
   * and the latest other than the installed one is the key's rollback release. Nothing
   * changes when `digest` is not the installed release or already the latest recorded.
   */
  markGood(key: string, digest: string): Promise<void>;
  /**
   * Deletes every release but the installed ones, the last good release of each
   * installed key other than its installed one (for a rollback), and those in `inUse`
   * (an upstream still runs from them); returns the digests deleted, sorted.
   */
  pruneReleases(inUse?: Iterable<string>): Promise<string[]>;
  /**
   * The latest release of `key` that ran, other than the installed one (what a rollback
   * goes back to, and what serves while a new release has never started); undefined when
   * there is none, or its files are gone.
   */
  lastGood(key: string): Promise<InstalledConnector | undefined>;
  /**
   * Installs `key`'s last good release again (a new revision): TUTTI_ERR_STORE_NO_ROLLBACK
   * when there is none.
   */
  rollback(key: string): Promise<InstallResult>;
}
