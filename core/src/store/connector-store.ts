/**
 * The store of one opened home (see `store.ts` for its files and how it opens): installs
 * and rollbacks, credentials, revisions and the release GC. Its installed state and good
 * releases are persisted before they become current, and every change runs one at a time
 * (a serial queue with a time limit, each change's own abort signal checked before every
 * write).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { CONNECTOR_KEY_PATTERN, type ConnectorManifest, readManifest } from '../manifest/index.js';
import { fsyncDir } from './atomic-write.js';
import type { CredentialStoreKind, SecretSlot, SecretVault } from '../credentials/secret-vault.js';
import type { HeldSlot, ShimSource, StoreVault } from '../credentials/store-vault.js';
import { checkSecret, secretPath } from './credential-file.js';
import type { GoodReleaseRecord } from './good-releases.js';
import { writeGuardedJson } from './guarded-json-file.js';
import { installedView, readInstalledView } from './installed-view.js';
import { findInstalledCopy } from './release-compare.js';
import { copyRelease } from './release-copy.js';
import { createSecret, type Secret } from './secret.js';
import { createSerialQueue } from './serial-queue.js';
import {
  type StoreState,
  withInstalled,
  withNextRevision,
  withoutInstalled,
} from './store-state.js';
import {
  DEFAULT_INSTALL_TIMEOUT_MS,
  DEFAULT_OPERATION_TIMEOUT_MS,
  readWithinInstallLimit,
  storeTimeout,
} from './store-time-limits.js';
import type {
  ConnectorStore,
  InstalledConnector,
  InstallResult,
  RevisionChange,
  StoreOptions,
} from './store-types.js';

function checkKey(key: string): void {
  if (!CONNECTOR_KEY_PATTERN.test(key))
    throw new TuttiError('TUTTI_ERR_REGISTRY_INVALID_KEY', { key });
}

/** The store's folders under its home. */
export interface StoreFolders {
  readonly root: string;
  readonly stateDir: string;
  readonly releasesDir: string;
  readonly credentialsDir: string;
  readonly stateFile: string;
  readonly goodFile: string;
}

/** What an opened store starts from. */
export interface OpenedState {
  readonly state: StoreState;
  readonly views: Map<string, InstalledConnector>;
  readonly good: GoodReleaseRecord;
  readonly problems: readonly TuttiError[];
  /** The store of its secrets, and what it held when the store opened. */
  readonly vault: StoreVault;
  readonly held: readonly HeldSlot[];
}

/** Which store holds each slot of each key, kept up to date by every change through the store. */
class HeldSlots {
  readonly #slots = new Map<string, Map<SecretSlot, CredentialStoreKind>>();

  constructor(held: readonly HeldSlot[]) {
    for (const { key, slot, store } of held) this.set(key, slot, store);
  }

  set(key: string, slot: SecretSlot, store: CredentialStoreKind): void {
    const slots = this.#slots.get(key) ?? new Map<SecretSlot, CredentialStoreKind>();
    this.#slots.set(key, slots.set(slot, store));
  }

  delete(key: string, slot?: SecretSlot): void {
    if (slot === undefined) this.#slots.delete(key);
    else this.#slots.get(key)?.delete(slot);
  }

  storeOf(key: string): CredentialStoreKind | undefined {
    const slots = this.#slots.get(key);
    if (!slots || slots.size === 0) return undefined;
    return slots.get('secret') ?? [...slots.values()][0];
  }
}

/** `vault` as the store hands it out: each change also updates `held`. */
function trackedVault(vault: StoreVault, held: HeldSlots): SecretVault {
  return {
    kind: vault.kind,
    get: (key, slot) => vault.get(key, slot),
    async set(key, slot, value) {
      await vault.set(key, slot, value);
      held.set(key, slot, vault.kind);
    },
    async delete(key, slot) {
      await vault.delete(key, slot);
      held.delete(key, slot);
    },
    async deleteAll(key) {
      await vault.deleteAll(key);
      held.delete(key);
    },
  };
}

/** The store over one opened home; see the module doc. */
class Store implements ConnectorStore {
  readonly home: string;
  readonly problems: readonly TuttiError[];
  readonly secrets: SecretVault;
  readonly #vault: StoreVault;
  readonly #held: HeldSlots;
  readonly #folders: StoreFolders;
  readonly #options: StoreOptions;
  #state: StoreState;
  #views: Map<string, InstalledConnector>;
  readonly #good: GoodReleaseRecord;
  readonly #serialize: ReturnType<typeof createSerialQueue>;
  /** Each queued change's own signal, checked before every change it makes. */
  readonly #operation = new AsyncLocalStorage<AbortSignal>();
  readonly #installMs: number;

  constructor(folders: StoreFolders, opened: OpenedState, options: StoreOptions) {
    this.home = folders.root;
    this.problems = opened.problems;
    this.#vault = opened.vault;
    this.#held = new HeldSlots(opened.held);
    this.secrets = trackedVault(opened.vault, this.#held);
    this.#folders = folders;
    this.#options = options;
    this.#state = opened.state;
    this.#views = opened.views;
    this.#good = opened.good;
    const operationMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    this.#installMs = options.installTimeoutMs ?? DEFAULT_INSTALL_TIMEOUT_MS;
    this.#serialize = createSerialQueue({
      timeoutMs: operationMs,
      timeoutError: storeTimeout('a change', operationMs, `the tutti home "${folders.root}"`),
    });
  }

  async install(releaseDir: string): Promise<InstallResult> {
    const { releasesDir } = this.#folders;
    const source = resolve(releaseDir);
    const limits = this.#options.releaseLimits ?? {};
    const staging = join(releasesDir, `.staging-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      const started = performance.now();
      const same = await readWithinInstallLimit(
        source,
        this.#installMs,
        this.#installMs,
        (signal) => findInstalledCopy(source, this.installed(), { signal, limits }),
      );
      if (same) {
        // Checked again in the queue: replaced or removed since, the same content is a change.
        const unchanged = await this.#queued(async () => {
          const current = this.#views.get(same.key);
          return current?.digest === same.digest ? current : undefined;
        });
        if (unchanged) return Object.freeze({ ...unchanged, changed: false });
      }
      // What the compare took counts against the one time limit of reading the source.
      const left = this.#installMs - (performance.now() - started);
      const digest = await readWithinInstallLimit(source, left, this.#installMs, (signal) =>
        copyRelease(source, staging, { signal, limits }),
      );
      // Validated on the copy, the only thing installed; errors name the user's folder.
      const manifest = await readManifest(staging, source);
      return await this.#queued(async () => {
        const dir = join(releasesDir, digest);
        this.#mayChange();
        try {
          await rename(staging, dir);
          await fsyncDir(releasesDir);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
        }
        return this.#setInstalled(manifest.key, manifest, dir, digest);
      });
    } finally {
      // Never in place of the install's own error (a copy past its time limit may still be
      // writing here; it removes what it wrote when it stops).
      await rm(staging, { recursive: true, force: true }).catch(() => {});
    }
  }

  uninstall(key: string): Promise<RevisionChange> {
    return this.#queued(async () => {
      checkKey(key);
      if (!(key in this.#state.connectors)) {
        return { key, revision: this.#state.revisions[key] ?? 0, changed: false };
      }
      // The secret goes first: a crash in between must not leave it behind for a later install.
      this.#mayChange();
      await this.secrets.deleteAll(key);
      const next = withoutInstalled(this.#state, key);
      await this.#commit(next);
      await this.#good.forget(key, this.#operation.getStore());
      this.#views = new Map(this.#views);
      this.#views.delete(key);
      return { key, revision: next.revisions[key]!, changed: true };
    });
  }

  installed(): readonly InstalledConnector[] {
    return [...this.#views.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  get(key: string): InstalledConnector | undefined {
    return this.#views.get(key);
  }

  setCredential(key: string, secret: string | Secret): Promise<RevisionChange> {
    return this.#queued(async () => {
      const view = this.#requireInstalled(key);
      const wrapped = typeof secret === 'string' ? createSecret(secret) : secret;
      const auth = view.manifest.auth;
      if (auth.kind === 'none') throw new TuttiError('TUTTI_ERR_STORE_NO_CREDENTIAL', { key });
      checkSecret(key, wrapped);
      const existing = await this.#vault.credential(key).catch(() => undefined);
      if (
        existing &&
        existing.kind === auth.kind &&
        existing.store === this.#vault.kind &&
        existing.secret.equals(wrapped)
      ) {
        return { key, revision: view.revision, changed: false };
      }
      this.#mayChange();
      await this.#vault.setCredential(key, auth.kind, wrapped);
      this.#held.set(key, 'secret', this.#vault.kind);
      return { key, revision: await this.#takeRevision(key), changed: true };
    });
  }

  clearCredential(key: string): Promise<RevisionChange> {
    return this.#queued(async () => {
      checkKey(key);
      this.#mayChange();
      const existed = await this.#vault.clearCredential(key);
      this.#held.delete(key, 'secret');
      if (!existed) {
        return { key, revision: this.#state.revisions[key] ?? 0, changed: false };
      }
      return { key, revision: await this.#takeRevision(key), changed: true };
    });
  }

  async credential(key: string) {
    checkKey(key);
    const stored = await this.#vault.credential(key);
    if (!stored) return undefined;
    const { kind, secret, updatedAt } = stored;
    return { kind, secret, updatedAt };
  }

  credentialFile(key: string): string {
    checkKey(key);
    return secretPath(this.#folders.credentialsDir, key);
  }

  credentialSource(key: string): ShimSource {
    checkKey(key);
    return this.#vault.shimSource(key);
  }

  credentialStore(key: string): CredentialStoreKind | undefined {
    checkKey(key);
    return this.#held.storeOf(key);
  }

  async authReady(key: string): Promise<boolean> {
    checkKey(key);
    const view = this.#views.get(key);
    if (!view) return false;
    const auth = view.manifest.auth;
    if (auth.kind === 'none') return true;
    const stored = await this.#vault.credential(key).catch(() => undefined);
    return stored?.kind === auth.kind;
  }

  nextRevision(key: string): Promise<number> {
    return this.#queued(async () => {
      checkKey(key);
      return this.#takeRevision(key);
    });
  }

  revision(key: string): number {
    return this.#state.revisions[key] ?? 0;
  }

  markGood(key: string, digest: string): Promise<void> {
    return this.#queued(async () => {
      checkKey(key);
      if (this.#state.connectors[key]?.digest !== digest) return;
      await this.#good.mark(key, digest, this.#operation.getStore());
    });
  }

  pruneReleases(inUse: Iterable<string> = []): Promise<string[]> {
    return this.#queued(async () => {
      const { releasesDir } = this.#folders;
      const keep = this.#kept();
      for (const digest of inUse) keep.add(digest);
      const removed: string[] = [];
      for (const name of await readdir(releasesDir)) {
        if (name.startsWith('.') || keep.has(name)) continue;
        this.#mayChange();
        await rm(join(releasesDir, name), { recursive: true, force: true });
        removed.push(name);
      }
      return removed.sort();
    });
  }

  async lastGood(key: string): Promise<InstalledConnector | undefined> {
    checkKey(key);
    const installed = this.#state.connectors[key];
    if (!installed) return undefined;
    const digest = this.#good.rollbackOf(key, installed.digest);
    if (!digest) return undefined;
    const dir = join(this.#folders.releasesDir, digest);
    return readInstalledView(key, dir, digest, installed.installedAt, this.revision(key));
  }

  async rollback(key: string): Promise<InstallResult> {
    const previous = await this.lastGood(key);
    if (!previous) throw new TuttiError('TUTTI_ERR_STORE_NO_ROLLBACK', { key });
    return this.#queued(() =>
      this.#setInstalled(key, previous.manifest, previous.releaseDir, previous.digest),
    );
  }

  /** Runs `task` as one change of the store, one at a time, with its own abort signal. */
  #queued<T>(task: () => Promise<T>): Promise<T> {
    return this.#serialize((signal) => this.#operation.run(signal, task));
  }

  #mayChange(): void {
    this.#operation.getStore()?.throwIfAborted();
  }

  /** Persists `next` and only then makes it the current state. */
  async #commit(next: StoreState): Promise<void> {
    this.#mayChange();
    await writeGuardedJson(this.#folders.stateFile, next);
    this.#state = next;
  }

  /**
   * Makes release `digest` of `key` (in `dir`; `manifest` validated) the installed one, at
   * a new revision; unchanged when it is installed already.
   */
  async #setInstalled(
    key: string,
    manifest: ConnectorManifest,
    dir: string,
    digest: string,
  ): Promise<InstallResult> {
    const existing = this.#views.get(key);
    if (existing?.digest === digest) return Object.freeze({ ...existing, changed: false });
    const installedAt = new Date().toISOString();
    const next = withInstalled(this.#state, key, digest, installedAt);
    await this.#commit(next);
    const view = await installedView(key, manifest, dir, digest, installedAt, next.revisions[key]!);
    this.#views = new Map(this.#views).set(key, view);
    return Object.freeze({
      ...view,
      changed: true,
      ...(existing && { previousDigest: existing.digest }),
    });
  }

  async #takeRevision(key: string): Promise<number> {
    const next = withNextRevision(this.#state, key);
    await this.#commit(next);
    const revision = next.revisions[key]!;
    const view = this.#views.get(key);
    if (view) this.#views.set(key, Object.freeze({ ...view, revision }));
    return revision;
  }

  #requireInstalled(key: string): InstalledConnector {
    checkKey(key);
    const view = this.#views.get(key);
    if (!view) throw new TuttiError('TUTTI_ERR_STORE_NOT_INSTALLED', { key });
    return view;
  }

  /** The releases the GC keeps: installed ones and the last good one of each installed key. */
  #kept(): Set<string> {
    const keep = new Set<string>();
    for (const [key, record] of Object.entries(this.#state.connectors)) {
      keep.add(record.digest);
      const rollback = this.#good.rollbackOf(key, record.digest);
      if (rollback) keep.add(rollback);
    }
    return keep;
  }
}

/** The store over the folders `folders`, starting from what opening it read. */
export function createStore(
  folders: StoreFolders,
  opened: OpenedState,
  options: StoreOptions,
): ConnectorStore {
  return new Store(folders, opened, options);
}
