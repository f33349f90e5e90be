/**
 * The connector store under a tutti home:
 * `releases/<digest>/` content-addressed releases, `state/installed.json` (+ `.last-good`)
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
import { copyRelease } from './release-copy.js';
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

/**
 * Opens (creating when needed) the store under `home`. Recovers from a damaged state file
 * through its last good copy and reports that in `problems`; throws
 * TUTTI_ERR_STORE_STATE_CORRUPT when no good copy exists.
 * @example const store = await openStore(resolveHome({ flag, env: process.env }));
 */
export async function openStore(home: string, options: StoreOptions = {}): Promise<ConnectorStore> {
  const root = resolve(home);
  const stateDir = join(root, 'state');
  const releasesDir = join(root, 'releases');
  const credentialsDir = join(root, 'credentials');
  const stateFile = join(stateDir, 'installed.json');
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
  const read = await readGuardedJson(stateFile, storeStateSchema, EMPTY_STATE);
  if (read.problem) report(read.problem);
  let state: StoreState = read.value;
  let views = new Map<string, InstalledConnector>();
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
  const goodFile = join(stateDir, 'good-releases.json');
  // Damaged past repair, it costs only the rollback candidates: reported, started afresh.
  const readGood = await readGuardedJson(goodFile, goodReleasesSchema, NO_GOOD_RELEASES).catch(
    (error: unknown) => {
      if (!isTuttiError(error)) throw error;
      return { value: NO_GOOD_RELEASES, problem: error };
    },
  );
  if (readGood.problem) report(readGood.problem);
  let good = onlyGoodReleasesOf(readGood.value, (key) => key in state.connectors);

  const operationMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
  const installMs = options.installTimeoutMs ?? DEFAULT_INSTALL_TIMEOUT_MS;
  const timeout = (operation: string, ms: number, what: string) => () =>
    new TuttiError('TUTTI_ERR_STORE_TIMEOUT', {
      operation,
      seconds: Math.round(ms / 100) / 10,
      what,
    });
  const serialize = createSerialQueue({
    timeoutMs: operationMs,
    timeoutError: timeout('a change', operationMs, `the tutti home "${root}"`),
  });
  /** Each queued operation's own signal, checked before every change it makes. */
  const operation = new AsyncLocalStorage<AbortSignal>();
  const mayChange = () => operation.getStore()?.throwIfAborted();
  const queued =
    <A extends unknown[], T>(task: (...args: A) => Promise<T>) =>
    (...args: A): Promise<T> =>
      serialize((signal) => operation.run(signal, () => task(...args)));

  /** Persists `next` and only then makes it the current state. */
  const commit = async (next: StoreState): Promise<void> => {
    mayChange();
    await writeGuardedJson(stateFile, next);
    state = next;
  };
  /** Persists the good releases `next` and only then makes them current. */
  const commitGood = async (next: GoodReleases): Promise<void> => {
    mayChange();
    await writeGuardedJson(goodFile, next);
    good = next;
  };
  const bumped = (key: string): StoreState['revisions'] => ({
    ...state.revisions,
    [key]: (state.revisions[key] ?? 0) + 1,
  });
  const withRevision = (view: InstalledConnector, revision: number): InstalledConnector =>
    Object.freeze({ ...view, revision });
  const takeRevision = async (key: string): Promise<number> => {
    const revisions = bumped(key);
    await commit({ ...state, revisions });
    const revision = revisions[key]!;
    const view = views.get(key);
    if (view) views.set(key, withRevision(view, revision));
    return revision;
  };

  /**
   * Copies `source` into a private staging folder under `releases/`, outside the queue
   * (a slow or hostile source folder holds up nothing else), within the install time limit.
   */
  const stageRelease = async (source: string, staging: string): Promise<string> =>
    withTimeLimit(
      (signal) =>
        copyRelease(source, staging, {
          signal,
          ...(options.releaseLimits && { limits: options.releaseLimits }),
        }),
      installMs,
      timeout(`the copy of "${source}"`, installMs, 'the release folder'),
    );

  const install = async (releaseDir: string): Promise<InstallResult> => {
    const source = resolve(releaseDir);
    const staging = join(releasesDir, `.staging-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      const digest = await stageRelease(source, staging);
      // Validated on the copy, the only thing installed; errors name the user's folder.
      const manifest = await readManifest(staging, source);
      return await queued(async () => {
        const dir = join(releasesDir, digest);
        mayChange();
        try {
          await rename(staging, dir);
          await fsyncDir(releasesDir);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
        }
        const key = manifest.key;
        const existing = views.get(key);
        if (existing && existing.digest === digest) {
          return Object.freeze({ ...existing, changed: false });
        }
        const installedAt = new Date().toISOString();
        const revisions = bumped(key);
        await commit({
          ...state,
          connectors: { ...state.connectors, [key]: { digest, installedAt } },
          revisions,
        });
        const view = await describe(key, manifest, dir, digest, installedAt, revisions[key]!);
        views = new Map(views).set(key, view);
        return Object.freeze({
          ...view,
          changed: true,
          ...(existing && { previousDigest: existing.digest }),
        });
      })();
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  };

  const uninstall = queued(async (key: string): Promise<RevisionChange> => {
    checkKey(key);
    if (!(key in state.connectors)) {
      return { key, revision: state.revisions[key] ?? 0, changed: false };
    }
    // The secret goes first: a crash in between must not leave it behind for a later install.
    mayChange();
    await deleteCredential(credentialsDir, key);
    const { [key]: _removed, ...connectors } = state.connectors;
    const revisions = bumped(key);
    await commit({ ...state, connectors, revisions });
    if (key in good.good) await commitGood(onlyGoodReleasesOf(good, (other) => other !== key));
    views = new Map(views);
    views.delete(key);
    return { key, revision: revisions[key]!, changed: true };
  });

  const requireInstalled = (key: string): InstalledConnector => {
    checkKey(key);
    const view = views.get(key);
    if (!view) throw new TuttiError('TUTTI_ERR_STORE_NOT_INSTALLED', { key });
    return view;
  };

  const setCredential = queued(
    async (key: string, secret: string | Secret): Promise<RevisionChange> => {
      const view = requireInstalled(key);
      const wrapped = typeof secret === 'string' ? createSecret(secret) : secret;
      const auth = view.manifest.auth;
      if (auth.kind === 'none') throw new TuttiError('TUTTI_ERR_STORE_NO_CREDENTIAL', { key });
      checkSecret(key, wrapped);
      const existing = await readCredential(credentialsDir, key).catch(() => undefined);
      if (existing && existing.kind === auth.kind && existing.secret.equals(wrapped)) {
        return { key, revision: view.revision, changed: false };
      }
      mayChange();
      await writeCredential(credentialsDir, key, auth.kind, wrapped);
      return { key, revision: await takeRevision(key), changed: true };
    },
  );

  const clearCredential = queued(async (key: string): Promise<RevisionChange> => {
    checkKey(key);
    mayChange();
    if (!(await deleteCredential(credentialsDir, key))) {
      return { key, revision: state.revisions[key] ?? 0, changed: false };
    }
    return { key, revision: await takeRevision(key), changed: true };
  });

  const credential = async (key: string) => {
    checkKey(key);
    return readCredential(credentialsDir, key);
  };

  const authReady = async (key: string): Promise<boolean> => {
    checkKey(key);
    const view = views.get(key);
    if (!view) return false;
    const auth = view.manifest.auth;
    if (auth.kind === 'none') return true;
    const stored = await readCredential(credentialsDir, key).catch(() => undefined);
    return stored?.kind === auth.kind;
  };

  const markGood = queued(async (key: string, digest: string): Promise<void> => {
    checkKey(key);
    if (state.connectors[key]?.digest !== digest) return;
    if (good.good[key]?.[0] === digest) return;
    await commitGood(withGoodRelease(good, key, digest));
  });

  /** The releases the GC keeps: installed ones and the last good one of each installed key. */
  const kept = (): Set<string> => {
    const keep = new Set<string>();
    for (const [key, record] of Object.entries(state.connectors)) {
      keep.add(record.digest);
      const rollback = (good.good[key] ?? []).find((digest) => digest !== record.digest);
      if (rollback) keep.add(rollback);
    }
    return keep;
  };

  const pruneReleases = queued(async (inUse: Iterable<string> = []): Promise<string[]> => {
    const keep = kept();
    for (const digest of inUse) keep.add(digest);
    const removed: string[] = [];
    for (const name of await readdir(releasesDir)) {
      if (name.startsWith('.') || keep.has(name)) continue;
      mayChange();
      await rm(join(releasesDir, name), { recursive: true, force: true });
      removed.push(name);
    }
    return removed.sort();
  });

  return Object.freeze({
    home: root,
    problems,
    install,
    uninstall,
    installed: () => [...views.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
    get: (key: string) => views.get(key),
    setCredential,
    clearCredential,
    credential,
    credentialFile: (key: string) => {
      checkKey(key);
      return secretPath(credentialsDir, key);
    },
    authReady,
    nextRevision: queued(async (key: string) => {
      checkKey(key);
      return takeRevision(key);
    }),
    revision: (key: string) => state.revisions[key] ?? 0,
    markGood,
    pruneReleases,
  });
}
