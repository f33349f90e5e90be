/**
 * The connector store under a tutti home:
 * `releases/<digest>/` content-addressed releases (the same content installed again is
 * recognised in place, without a copy), `state/installed.json` (+ `.last-good`)
 * with the installed digest and last revision per key, `state/good-releases.json` (the
 * releases of each key that ran, kept for a rollback), `credentials/<key>.json` (0600).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isTuttiError, TuttiError } from '../errors/index.js';
import {
  CONNECTOR_KEY_PATTERN,
  type ConnectorManifest,
  listSkills,
  readManifest,
  resolveReleasePaths,
} from '../manifest/index.js';
import { fsyncDir, isProcessAlive, removeStrayTempFiles } from './atomic-write.js';
import {
  alignSecretFiles,
  deleteCredential,
  ensureCredentialsDir,
  readCredential,
  secretPath,
  writeCredential,
} from './credential-file.js';
import {
  type GoodReleases,
  goodReleasesSchema,
  NO_GOOD_RELEASES,
  onlyGoodReleasesOf,
  withGoodRelease,
} from './good-releases.js';
import { readGuardedJson, writeGuardedJson } from './guarded-json-file.js';
import { findInstalledCopy } from './release-compare.js';
import { copyRelease, type ReleaseLimits } from './release-copy.js';
import { createSecret, type Secret } from './secret.js';
import { createSerialQueue, withTimeLimit } from './serial-queue.js';
import { EMPTY_STATE, type StoreState, storeStateSchema } from './store-state.js';
import type {
  ConnectorStore,
  InstalledConnector,
  InstallResult,
  RevisionChange,
  StoreOptions,
} from './store-types.js';

const STAGING = /^\.staging-(\d+)-[0-9a-f]+$/;

/** Longest a single store change may hold the store (default 30 s). */
export const DEFAULT_OPERATION_TIMEOUT_MS = 30_000;
/** Longest the copy of one release may take (default 120 s). */
export const DEFAULT_INSTALL_TIMEOUT_MS = 120_000;

function checkKey(key: string): void {
  if (!CONNECTOR_KEY_PATTERN.test(key))
    throw new TuttiError('TUTTI_ERR_REGISTRY_INVALID_KEY', { key });
}

function checkSecret(key: string, secret: Secret): void {
  const value = secret.reveal();
  if (value.length === 0) {
    throw new TuttiError('TUTTI_ERR_STORE_INVALID_CREDENTIAL', { key, reason: 'it is empty' });
  }
  if (/[\r\n\0]/.test(value)) {
    throw new TuttiError('TUTTI_ERR_STORE_INVALID_CREDENTIAL', {
      key,
      reason: 'it contains a line break or NUL',
    });
  }
}

/** Builds the in-memory view of one installed release (manifest already validated). */
async function describe(
  key: string,
  manifest: ConnectorManifest,
  releaseDir: string,
  digest: string,
  installedAt: string,
  revision: number,
): Promise<InstalledConnector> {
  const paths = resolveReleasePaths(manifest, releaseDir);
  const skills = await listSkills(paths.skillsDir);
  return Object.freeze({
    key,
    manifest,
    releaseDir,
    digest,
    revision,
    installedAt,
    paths,
    ...(skills.length > 0 && { skillsDir: paths.skillsDir }),
    skills: Object.freeze(skills),
  });
}

/** The store's folders under its home. */
interface StoreFolders {
  readonly root: string;
  readonly stateDir: string;
  readonly releasesDir: string;
  readonly credentialsDir: string;
  readonly stateFile: string;
  readonly goodFile: string;
}

/** What an opened store starts from. */
interface OpenedState {
  readonly state: StoreState;
  readonly views: Map<string, InstalledConnector>;
  readonly good: GoodReleases;
  readonly problems: readonly TuttiError[];
}

/**
 * The store over one home: its installed state and good releases, persisted before they
 * become current, every change one at a time (a serial queue with a time limit, each
 * change's own abort signal checked before every write).
 */
class Store implements ConnectorStore {
  readonly home: string;
  readonly problems: readonly TuttiError[];
  readonly #folders: StoreFolders;
  readonly #options: StoreOptions;
  #state: StoreState;
  #views: Map<string, InstalledConnector>;
  #good: GoodReleases;
  readonly #serialize: ReturnType<typeof createSerialQueue>;
  /** Each queued change's own signal, checked before every change it makes. */
  readonly #operation = new AsyncLocalStorage<AbortSignal>();
  readonly #installMs: number;

  constructor(folders: StoreFolders, opened: OpenedState, options: StoreOptions) {
    this.home = folders.root;
    this.problems = opened.problems;
    this.#folders = folders;
    this.#options = options;
    this.#state = opened.state;
    this.#views = opened.views;
    this.#good = opened.good;
    const operationMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    this.#installMs = options.installTimeoutMs ?? DEFAULT_INSTALL_TIMEOUT_MS;
    this.#serialize = createSerialQueue({
      timeoutMs: operationMs,
      timeoutError: timeout('a change', operationMs, `the tutti home "${folders.root}"`),
    });
  }

  async install(releaseDir: string): Promise<InstallResult> {
    const { releasesDir } = this.#folders;
    const source = resolve(releaseDir);
    const staging = join(releasesDir, `.staging-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      const started = performance.now();
      const same = await this.#readSource(source, this.#installMs, (signal, limits) =>
        findInstalledCopy(source, this.installed(), { signal, limits }),
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
      const digest = await this.#readSource(source, left, (signal, limits) =>
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
        const key = manifest.key;
        const existing = this.#views.get(key);
        if (existing && existing.digest === digest) {
          return Object.freeze({ ...existing, changed: false });
        }
        const installedAt = new Date().toISOString();
        const revisions = this.#bumped(key);
        await this.#commit({
          ...this.#state,
          connectors: { ...this.#state.connectors, [key]: { digest, installedAt } },
          revisions,
        });
        const view = await describe(key, manifest, dir, digest, installedAt, revisions[key]!);
        this.#views = new Map(this.#views).set(key, view);
        return Object.freeze({
          ...view,
          changed: true,
          ...(existing && { previousDigest: existing.digest }),
        });
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
      await deleteCredential(this.#folders.credentialsDir, key);
      const { [key]: _removed, ...connectors } = this.#state.connectors;
      const revisions = this.#bumped(key);
      await this.#commit({ ...this.#state, connectors, revisions });
      if (key in this.#good.good) {
        await this.#commitGood(onlyGoodReleasesOf(this.#good, (other) => other !== key));
      }
      this.#views = new Map(this.#views);
      this.#views.delete(key);
      return { key, revision: revisions[key]!, changed: true };
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
      const { credentialsDir } = this.#folders;
      const existing = await readCredential(credentialsDir, key).catch(() => undefined);
      if (existing && existing.kind === auth.kind && existing.secret.equals(wrapped)) {
        return { key, revision: view.revision, changed: false };
      }
      this.#mayChange();
      await writeCredential(credentialsDir, key, auth.kind, wrapped);
      return { key, revision: await this.#takeRevision(key), changed: true };
    });
  }

  clearCredential(key: string): Promise<RevisionChange> {
    return this.#queued(async () => {
      checkKey(key);
      this.#mayChange();
      if (!(await deleteCredential(this.#folders.credentialsDir, key))) {
        return { key, revision: this.#state.revisions[key] ?? 0, changed: false };
      }
      return { key, revision: await this.#takeRevision(key), changed: true };
    });
  }

  async credential(key: string) {
    checkKey(key);
    return readCredential(this.#folders.credentialsDir, key);
  }

  credentialFile(key: string): string {
    checkKey(key);
    return secretPath(this.#folders.credentialsDir, key);
  }

  async authReady(key: string): Promise<boolean> {
    checkKey(key);
    const view = this.#views.get(key);
    if (!view) return false;
    const auth = view.manifest.auth;
    if (auth.kind === 'none') return true;
    const stored = await readCredential(this.#folders.credentialsDir, key).catch(() => undefined);
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
      if (this.#good.good[key]?.[0] === digest) return;
      await this.#commitGood(withGoodRelease(this.#good, key, digest));
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
    const digest = (this.#good.good[key] ?? []).find((ran) => ran !== installed.digest);
    if (!digest) return undefined;
    const dir = join(this.#folders.releasesDir, digest);
    try {
      const manifest = await readManifest(dir);
      if (manifest.key !== key) return undefined;
      return await describe(key, manifest, dir, digest, installed.installedAt, this.revision(key));
    } catch {
      return undefined;
    }
  }

  async rollback(key: string): Promise<InstallResult> {
    const previous = await this.lastGood(key);
    if (!previous) throw new TuttiError('TUTTI_ERR_STORE_NO_ROLLBACK', { key });
    return this.#queued(async () => {
      const installed = this.#views.get(key);
      if (installed?.digest === previous.digest)
        return Object.freeze({ ...installed, changed: false });
      const installedAt = new Date().toISOString();
      const revisions = this.#bumped(key);
      await this.#commit({
        ...this.#state,
        connectors: { ...this.#state.connectors, [key]: { digest: previous.digest, installedAt } },
        revisions,
      });
      const view = await describe(
        key,
        previous.manifest,
        previous.releaseDir,
        previous.digest,
        installedAt,
        revisions[key]!,
      );
      this.#views = new Map(this.#views).set(key, view);
      return Object.freeze({
        ...view,
        changed: true,
        ...(installed && { previousDigest: installed.digest }),
      });
    });
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

  /** Persists the good releases `next` and only then makes them current. */
  async #commitGood(next: GoodReleases): Promise<void> {
    this.#mayChange();
    await writeGuardedJson(this.#folders.goodFile, next);
    this.#good = next;
  }

  #bumped(key: string): StoreState['revisions'] {
    return { ...this.#state.revisions, [key]: (this.#state.revisions[key] ?? 0) + 1 };
  }

  async #takeRevision(key: string): Promise<number> {
    const revisions = this.#bumped(key);
    await this.#commit({ ...this.#state, revisions });
    const revision = revisions[key]!;
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

  /**
   * Runs `read` of the release folder `source` outside the queue (a slow or hostile source
   * folder holds up nothing else), within `ms` of the install time limit, with the caps.
   */
  #readSource<T>(
    source: string,
    ms: number,
    read: (signal: AbortSignal, limits: Partial<ReleaseLimits>) => Promise<T>,
  ): Promise<T> {
    return withTimeLimit(
      (signal) => read(signal, this.#options.releaseLimits ?? {}),
      Math.max(ms, 0),
      timeout(`the copy of "${source}"`, this.#installMs, 'the release folder'),
    );
  }

  /** The releases the GC keeps: installed ones and the last good one of each installed key. */
  #kept(): Set<string> {
    const keep = new Set<string>();
    for (const [key, record] of Object.entries(this.#state.connectors)) {
      keep.add(record.digest);
      const rollback = (this.#good.good[key] ?? []).find((digest) => digest !== record.digest);
      if (rollback) keep.add(rollback);
    }
    return keep;
  }
}

/** The error of an operation that took longer than `ms`. */
function timeout(operation: string, ms: number, what: string) {
  return () =>
    new TuttiError('TUTTI_ERR_STORE_TIMEOUT', {
      operation,
      seconds: Math.round(ms / 100) / 10,
      what,
    });
}

/**
 * Opens (creating when needed) the store under `home`. Recovers from a damaged state file
 * through its last good copy and reports that in `problems`; throws
 * TUTTI_ERR_STORE_STATE_CORRUPT when no good copy exists.
 * @example const store = await openStore(resolveHome({ flag, env: process.env }));
 */
export async function openStore(home: string, options: StoreOptions = {}): Promise<ConnectorStore> {
  const root = resolve(home);
  const folders: StoreFolders = {
    root,
    stateDir: join(root, 'state'),
    releasesDir: join(root, 'releases'),
    credentialsDir: join(root, 'credentials'),
    stateFile: join(root, 'state', 'installed.json'),
    goodFile: join(root, 'state', 'good-releases.json'),
  };
  const { stateDir, releasesDir, credentialsDir } = folders;
  await mkdir(stateDir, { recursive: true });
  await mkdir(releasesDir, { recursive: true });
  await ensureCredentialsDir(credentialsDir);
  await removeStrayTempFiles(stateDir);
  await removeStrayTempFiles(credentialsDir);
  await alignSecretFiles(credentialsDir);
  for (const name of await readdir(releasesDir)) {
    const match = STAGING.exec(name);
    if (match && !isProcessAlive(Number(match[1]))) {
      await rm(join(releasesDir, name), { recursive: true, force: true });
    }
  }

  const problems: TuttiError[] = [];
  const report = (problem: TuttiError): void => {
    problems.push(problem);
    options.onProblem?.(problem);
  };
  const read = await readGuardedJson(folders.stateFile, storeStateSchema, EMPTY_STATE);
  if (read.problem) report(read.problem);
  const state = read.value;
  const views = new Map<string, InstalledConnector>();
  for (const [key, record] of Object.entries(state.connectors)) {
    const releaseDir = join(releasesDir, record.digest);
    try {
      const manifest = await readManifest(releaseDir);
      const revision = state.revisions[key] ?? 0;
      views.set(
        key,
        await describe(key, manifest, releaseDir, record.digest, record.installedAt, revision),
      );
    } catch (error) {
      const reason = isTuttiError(error) ? error.code : String(error);
      report(
        new TuttiError('TUTTI_ERR_STORE_RELEASE_MISSING', { key, digest: record.digest, reason }),
      );
    }
  }

  // The releases that ran, for the GC; those of keys no longer installed are forgotten.
  // Damaged past repair, it costs only the rollback candidates: reported, started afresh.
  const readGood = await readGuardedJson(
    folders.goodFile,
    goodReleasesSchema,
    NO_GOOD_RELEASES,
  ).catch((error: unknown) => {
    if (!isTuttiError(error)) throw error;
    return { value: NO_GOOD_RELEASES, problem: error };
  });
  if (readGood.problem) report(readGood.problem);
  const good = onlyGoodReleasesOf(readGood.value, (key) => key in state.connectors);
  return new Store(folders, { state, views, good, problems }, options);
}
