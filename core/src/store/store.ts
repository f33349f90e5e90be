/**
 * The connector store under a tutti home:
 * `releases/<digest>/` content-addressed releases (the same content installed again is
 * recognised in place, without a copy), `state/installed.json` (+ `.last-good`)
 * with the installed digest and last revision per key, `state/good-releases.json` (the
 * releases of each key that ran, kept for a rollback), `credentials/<key>.json` (0600)
 * and the secrets, in the OS keychain or 0600 files beside it (`credentials/`,
 * docs/credential-store.md). Opening it clears what an interrupted run left, chooses the
 * secrets' store (moving file secrets into the keychain when that is the one) and reads
 * its state; what the opened store does is in `connector-store.ts`.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { migrateToKeychain } from '../credentials/migrate-to-keychain.js';
import { openSecretVault } from '../credentials/select-vault.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { readManifest } from '../manifest/index.js';
import { isProcessAlive, removeStrayTempFiles } from './atomic-write.js';
import { createStore, type StoreFolders } from './connector-store.js';
import { alignSecretFiles, ensureCredentialsDir } from './credential-file.js';
import { openGoodReleases } from './good-releases.js';
import { readGuardedJson } from './guarded-json-file.js';
import { installedView } from './installed-view.js';
import { EMPTY_STATE, storeStateSchema } from './store-state.js';
import type { ConnectorStore, InstalledConnector, StoreOptions } from './store-types.js';

/** A staging copy of an install (`.staging-<pid>-<random>`), left when its process died. */
const STAGING = /^\.staging-(\d+)-[0-9a-f]+$/;

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
  const { vault, items } = await openSecretVault({
    home: root,
    credentialsDir,
    mode: options.credentialStore ?? 'file',
    ...(options.logger && { logger: options.logger }),
    ...(options.secretReader && { reader: options.secretReader }),
  });
  if (items) {
    const report = await migrateToKeychain(items, credentialsDir);
    if (report.moved.length > 0) {
      options.logger?.info({ moved: report.moved }, 'moved file secrets into the OS keychain');
    }
    for (const { secret, reason } of report.failed) {
      options.logger?.warn({ secret, reason }, `kept a secret in its file: ${reason}`);
    }
  }
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
        await installedView(key, manifest, releaseDir, record.digest, record.installedAt, revision),
      );
    } catch (error) {
      const reason = isTuttiError(error) ? error.code : String(error);
      report(
        new TuttiError('TUTTI_ERR_STORE_RELEASE_MISSING', { key, digest: record.digest, reason }),
      );
    }
  }

  // The releases that ran, for the GC and a rollback.
  const good = await openGoodReleases(folders.goodFile, (key) => key in state.connectors, report);
  const held = await vault.held();
  return createStore(folders, { state, views, good, problems, vault, held }, options);
}
