/**
 * The package of a signed extension: a `.tar.gz` of data only. After its SHA-256 matched the
 * signed `versions.json`, it is listed with the archive checks, then every file is checked
 * to be data (no code extension, no executable bit, no `#!` first line), and its
 * `tutti-extension.json` must name the source's agent and version, a descriptor, and every
 * file it holds.
 */
import { open, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { z } from 'zod';
import { TuttiError } from '../errors/index.js';
import { formatPath } from '../manifest/manifest-issues.js';
import { type ArchiveEntry, extractArchive, listArchive } from './archive.js';
import { downloadVerified } from './binary-runtime.js';
import type { ExtensionSource, SignedVersion } from './extension-source.js';

/** The manifest file of a package. */
export const EXTENSION_MANIFEST = 'tutti-extension.json';
const CODE_EXTENSIONS = /\.(js|mjs|cjs|node|so|dylib|dll|py|sh|exe)$/i;

const relativePath = z
  .string()
  .min(1)
  .max(500)
  .refine(
    (path) =>
      !path.startsWith('/') &&
      !path.includes('\\') &&
      !path.includes('\0') &&
      !path.split('/').some((part) => part === '..' || part === ''),
    'must be a relative path inside the package (no "..", no leading "/")',
  );

const manifestSchema = z.strictObject({
  agent: z.string(),
  version: z.string(),
  descriptor: relativePath,
  files: z.array(relativePath),
  entry: z.unknown().optional(),
});

/** A verified, extracted package. */
export interface ExtensionPackage {
  /** The descriptor, relative to the package folder. */
  readonly descriptor: string;
  /** The declared files, relative to the package folder. */
  readonly files: readonly string[];
  /** The registry entry the package brings as the runtime, unchecked. */
  readonly entry?: unknown;
}

/** Refuses a file that is code: by extension, or by an executable bit. */
function checkEntryIsData(agent: string, entry: ArchiveEntry): void {
  if (entry.type !== 'file') return;
  const notData = (reason: string) =>
    new TuttiError('TUTTI_ERR_EXTENSION_NOT_DATA', { agent, file: entry.path, reason });
  const ext = CODE_EXTENSIONS.exec(entry.path)?.[0];
  if (ext) throw notData(`has the code extension ${ext.toLowerCase()}`);
  if ((entry.mode & 0o111) !== 0) throw notData('has an executable bit in its mode');
}

/** Whether a file starts with `#!`; a file extraction did not leave as listed is refused. */
async function startsWithShebang(agent: string, dir: string, file: string): Promise<boolean> {
  try {
    const handle = await open(join(dir, file), 'r');
    try {
      const head = Buffer.alloc(2);
      const { bytesRead } = await handle.read(head, 0, 2, 0);
      return bytesRead === 2 && head.toString('latin1') === '#!';
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new TuttiError('TUTTI_ERR_EXTENSION_BAD_PACKAGE', {
      agent,
      problem: `its file "${file}" is not a readable file once extracted (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    });
  }
}

/**
 * Downloads, verifies and extracts the package of `signed` into `dir` (empty); `scratch`
 * holds the download.
 */
export async function installExtensionPackage(
  source: ExtensionSource,
  signed: SignedVersion,
  dir: string,
  scratch: string,
): Promise<ExtensionPackage> {
  const { agent } = source;
  const badPackage = (problem: string) =>
    new TuttiError('TUTTI_ERR_EXTENSION_BAD_PACKAGE', { agent, problem });
  if (!/\.(tar\.gz|tgz)$/i.test(signed.package.pathname)) {
    throw badPackage('the package is not a .tar.gz: publish it as one');
  }
  const download = join(scratch, 'package.tar.gz');
  await downloadVerified(signed.package, download, signed.sha256);
  const entries = await listArchive(download, signed.package);
  for (const entry of entries) checkEntryIsData(agent, entry);
  await extractArchive(download, dir, signed.package);
  const files = entries.filter((entry) => entry.type === 'file').map((entry) => entry.path);
  for (const file of files) {
    if (await startsWithShebang(agent, dir, file)) {
      throw new TuttiError('TUTTI_ERR_EXTENSION_NOT_DATA', {
        agent,
        file,
        reason: 'starts with "#!" (a script)',
      });
    }
  }

  if (!files.includes(EXTENSION_MANIFEST)) {
    throw badPackage(`it has no ${EXTENSION_MANIFEST} at its top level`);
  }
  let manifest: z.infer<typeof manifestSchema>;
  try {
    const parsed = manifestSchema.safeParse(
      JSON.parse(await readFile(join(dir, EXTENSION_MANIFEST), 'utf8')),
    );
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path =
        issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
      throw badPackage(
        `${EXTENSION_MANIFEST}: ${formatPath(path)}: ${issue.code === 'unrecognized_keys' ? 'is not a field (agent, version, descriptor, files, entry)' : issue.message}`,
      );
    }
    manifest = parsed.data;
  } catch (error) {
    if (error instanceof TuttiError) throw error;
    throw badPackage(`${EXTENSION_MANIFEST} is not JSON`);
  }
  if (manifest.agent !== agent) {
    throw new TuttiError('TUTTI_ERR_EXTENSION_IDENTITY_MISMATCH', {
      agent,
      where: EXTENSION_MANIFEST,
      found: manifest.agent.slice(0, 100),
    });
  }
  if (manifest.version !== source.version) {
    throw new TuttiError('TUTTI_ERR_EXTENSION_VERSION_MISMATCH', {
      agent,
      pinned: source.version,
      where: EXTENSION_MANIFEST,
      found: manifest.version.slice(0, 64),
    });
  }
  const present = new Set(files);
  const descriptor = posix.normalize(manifest.descriptor);
  const declared = manifest.files.map((file) => posix.normalize(file));
  for (const file of [descriptor, ...declared]) {
    if (!present.has(file))
      throw badPackage(`${EXTENSION_MANIFEST} names "${file}", which the package does not hold`);
  }
  const allowed = new Set([EXTENSION_MANIFEST, descriptor, ...declared]);
  const extra = files.find((file) => !allowed.has(file));
  if (extra !== undefined) {
    throw badPackage(
      `it holds "${extra}", which ${EXTENSION_MANIFEST} does not declare: list it in "files" or leave it out`,
    );
  }
  return {
    descriptor,
    files: [...new Set(declared)],
    ...(manifest.entry !== undefined ? { entry: manifest.entry } : {}),
  };
}
