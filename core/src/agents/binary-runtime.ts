/**
 * The binary distribution: the archive for this platform, downloaded only with a pinned
 * SHA-256 (stricter than the registry), checked, listed and extracted safely; the program is
 * the target's `cmd`, which must be a regular file inside the extracted folder.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { archiveKindOf, extractArchive, listArchive } from './archive.js';
import { checkDownloadUrl, downloadToFile, shownUrl } from './download.js';
import type { BinaryTarget, RegistryEntry } from './registry-entry.js';
import { makeExecutable, programInside, type StagedRuntime } from './staged-runtime.js';

/** Downloads `url` to `file` and checks its SHA-256 against `expected`. */
export async function downloadVerified(url: URL, file: string, expected: string): Promise<void> {
  const { sha256 } = await downloadToFile(url, file);
  if (sha256 !== expected.toLowerCase()) {
    throw new TuttiError('TUTTI_ERR_AGENT_CHECKSUM_MISMATCH', {
      url: shownUrl(url),
      expected: expected.toLowerCase(),
      actual: sha256,
    });
  }
}

/**
 * Installs a binary target into `dir` (which exists and is empty); `scratch` is a folder of
 * the staging area for the download.
 */
export async function installBinaryRuntime(
  entry: RegistryEntry,
  target: BinaryTarget,
  platform: string,
  dir: string,
  scratch: string,
): Promise<StagedRuntime> {
  const url = checkDownloadUrl(target.archive);
  if (!target.sha256) {
    throw new TuttiError('TUTTI_ERR_AGENT_CHECKSUM_MISSING', {
      id: entry.id,
      url: shownUrl(url),
      platform,
    });
  }
  const kind = archiveKindOf(url, entry.id);
  await mkdir(scratch, { recursive: true });
  const download = join(scratch, 'download');
  await downloadVerified(url, download, target.sha256);
  if (kind === 'tar.gz') {
    await listArchive(download, url);
    await extractArchive(download, dir, url);
    await rm(download, { force: true });
  } else {
    const name = target.cmd.replace(/^\.\//, '');
    if (name.includes('/') || name.includes('\\') || name === '..' || name === '.') {
      throw new TuttiError('TUTTI_ERR_AGENT_INSTALL_FAILED', {
        id: entry.id,
        reason: `the download is a single program, so "cmd" must be a plain file name (e.g. "./${entry.id}"), not "${target.cmd.slice(0, 200)}"`,
      });
    }
    await rename(download, join(dir, name));
  }
  const command = await programInside(entry.id, dir, dir, target.cmd);
  await makeExecutable(join(dir, command));
  return {
    version: entry.version,
    dir,
    command,
    args: target.args ?? [],
    env: target.env ?? {},
  };
}
