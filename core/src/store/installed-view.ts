/**
 * The in-memory view of one installed release, as the store answers it: the manifest with
 * its paths resolved against the release folder, and the release's skills listed once;
 * or, for a release that is not installed (a rollback's), read from its folder.
 */
import {
  type ConnectorManifest,
  listSkills,
  readManifest,
  resolveReleasePaths,
} from '../manifest/index.js';
import type { InstalledConnector } from './store-types.js';

/** Builds the view of release `digest` of `key` in `releaseDir` (manifest already validated). */
export async function installedView(
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
 * The view of release `digest` of `key` read from `releaseDir`: undefined when its manifest
 * cannot be read or is another key's.
 */
export async function readInstalledView(
  key: string,
  releaseDir: string,
  digest: string,
  installedAt: string,
  revision: number,
): Promise<InstalledConnector | undefined> {
  try {
    const manifest = await readManifest(releaseDir);
    if (manifest.key !== key) return undefined;
    return await installedView(key, manifest, releaseDir, digest, installedAt, revision);
  } catch {
    return undefined;
  }
}
