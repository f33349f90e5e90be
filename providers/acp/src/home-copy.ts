/**
 * `home.copy`: declared non-secret entries of the agent's own user folder copied into its
 * session home, so the session may change its copy (a config its skill roots are merged
 * into) and the user's file stays as it is. Only regular files and folders are copied
 * (files 0600, folders 0700); a symbolic link is never followed (an entry, or a folder on
 * its way, that is one is skipped), nor is a file whose name looks like a credential inside
 * a copied folder (credentials stay linked, never copied); a file over 1 MiB, or past 8 MiB
 * or 1000 entries in all, is skipped. Each skip is logged; a missing entry is skipped
 * silently. Copies are the session's own: never written back.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
import type { AcpEngineLogger } from './acp-session.js';
import { credentialSegment } from './credential-names.js';
import { ownFolders } from './home-folders.js';

/** The bounds of what one session home copies. */
export interface CopyLimits {
  readonly fileBytes: number;
  readonly totalBytes: number;
  readonly entries: number;
}

export const COPY_LIMITS: CopyLimits = Object.freeze({
  fileBytes: 1024 * 1024,
  totalBytes: 8 * 1024 * 1024,
  entries: 1000,
});

/** What one home's copy has used of its limits, and where it reports a skip. */
interface Copying {
  readonly limits: CopyLimits;
  readonly skip: (entry: string, reason: string) => void;
  bytes: number;
  entries: number;
}

/** Opens `path` without following a final symbolic link; its bytes, or why not. */
async function readRegularFile(path: string, copying: Copying): Promise<Buffer | string> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)).catch(
    () => undefined,
  );
  if (!handle) return 'it is a symbolic link or cannot be read';
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return 'it is not a regular file';
    if (stat.size > copying.limits.fileBytes) {
      return `it is larger than ${copying.limits.fileBytes} bytes`;
    }
    if (copying.bytes + stat.size > copying.limits.totalBytes) {
      return `the copies of the home would pass ${copying.limits.totalBytes} bytes`;
    }
    const bytes = await handle.readFile();
    copying.bytes += bytes.length;
    return bytes;
  } finally {
    await handle.close();
  }
}

/** Copies `from` (a file or folder, not a link) to `to`, which does not exist. */
async function copyEntry(from: string, to: string, entry: string, copying: Copying) {
  if (copying.entries >= copying.limits.entries) {
    copying.skip(entry, `the home copies at most ${copying.limits.entries} entries`);
    return;
  }
  copying.entries += 1;
  const stat = await lstat(from);
  if (stat.isDirectory()) {
    await mkdir(to, { mode: 0o700 });
    for (const name of (await readdir(from)).sort()) {
      const inner = `${entry}/${name}`;
      if (credentialSegment(name)) {
        copying.skip(
          inner,
          'its name looks like a credential (credentials are linked, never copied)',
        );
      } else {
        await copyEntry(join(from, name), join(to, name), inner, copying);
      }
    }
    return;
  }
  if (!stat.isFile()) {
    copying.skip(entry, 'it is a symbolic link or not a regular file');
    return;
  }
  const bytes = await readRegularFile(from, copying);
  if (typeof bytes === 'string') copying.skip(entry, bytes);
  else await writeFile(to, bytes, { mode: 0o600, flag: 'wx' });
}

/** The first folder of `entry` inside `user`, or the entry, that is not a plain folder or file. */
async function unsafeStep(user: string, entry: string): Promise<'missing' | 'link' | undefined> {
  const segments = entry.split('/');
  for (let index = 1; index <= segments.length; index += 1) {
    const stat = await lstat(join(user, ...segments.slice(0, index))).catch(() => undefined);
    if (!stat) return 'missing';
    if (stat.isSymbolicLink()) return 'link';
    if (index < segments.length && !stat.isDirectory()) return 'missing';
  }
  return undefined;
}

/**
 * Copies each of `entries` (relative to the user's folder `user`) into the session home
 * folder `home` at the same path, replacing what an earlier start of the session left there.
 * Resolves the entries copied (wholly or in part).
 */
export async function copyUserEntries(
  user: string,
  home: string,
  entries: readonly string[],
  logger?: AcpEngineLogger,
  limits: CopyLimits = COPY_LIMITS,
): Promise<string[]> {
  const copying: Copying = {
    limits,
    bytes: 0,
    entries: 0,
    skip: (entry, reason) =>
      logger?.warn(
        { entry },
        `home.copy: "${entry}" was not copied into the session home: ${reason}`,
      ),
  };
  const copied: string[] = [];
  for (const declared of entries) {
    const entry = normalize(declared).replace(/\/+$/, '');
    if (entry === '.' || entry === '' || entry.startsWith('..') || isAbsolute(entry)) {
      copying.skip(declared, 'it is not an entry inside the user folder');
      continue;
    }
    if (credentialSegment(entry)) {
      copying.skip(
        entry,
        'its name looks like a credential (credentials are linked, never copied)',
      );
      continue;
    }
    const step = await unsafeStep(user, entry);
    if (step === 'missing') continue;
    if (step === 'link') {
      copying.skip(entry, 'it is (or is inside) a symbolic link, which a copy never follows');
      continue;
    }
    if (!(await ownFolders(home, entry))) {
      copying.skip(entry, 'a file of the session home stands where its folder would be');
      continue;
    }
    const to = join(home, entry);
    await rm(to, { recursive: true, force: true });
    await copyEntry(join(user, entry), to, entry, copying);
    copied.push(entry);
  }
  return copied;
}
