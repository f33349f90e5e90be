/**
 * Publishes and removes the stable `tutti-connector-<key>` command of a connector's CLI.
 * The shim is written to a temporary file and renamed into place, so a reader (or a shell
 * already running the old shim) sees either the whole old file or the whole new one. The
 * generation marker inside the file fences publish and remove: an older generation never
 * replaces a newer one, and remove only deletes the generation it names.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { CONNECTOR_KEY_PATTERN } from '../manifest/index.js';
import { assertConnectorKey } from '../registry/local-name.js';
import { withKeyLock } from './key-lock.js';
import { invalidShimInput } from './shell-quote.js';
import {
  readGenerationMarker,
  renderCmdScript,
  renderShScript,
  type ShimCredential,
  type ShimEntrypoint,
} from './shim-script.js';

/** Prefix of every shim command name. */
export const SHIM_PREFIX = 'tutti-connector-';

/** What {@link publishShim} needs. */
export interface PublishShimOptions {
  /** The state bin dir that every agent has on PATH. */
  binDir: string;
  /** Connector key (1-32 of `[a-z0-9-]`). */
  key: string;
  /** Route generation this shim belongs to (a positive integer). */
  generation: number;
  /** The current release's CLI entrypoint. */
  entrypoint: ShimEntrypoint;
  /** Where the shim reads the connector's credential when it runs (never the value itself). */
  credential?: ShimCredential;
  /** Also write the Windows `.cmd` twin (default: on Windows only). */
  windows?: boolean;
}

/** What {@link removeShim} needs. */
export interface RemoveShimOptions {
  binDir: string;
  key: string;
  /** Only a shim published at exactly this generation is removed. */
  generation: number;
}

/** Where a published shim lives. */
export interface PublishedShim {
  /** The command name agents run, `tutti-connector-<key>`. */
  command: string;
  /** Absolute path of the `sh` shim. */
  path: string;
  generation: number;
}

/** The command name of connector `key`'s shim, e.g. `tutti-connector-github`. */
export function shimCommand(key: string): string {
  return `${SHIM_PREFIX}${key}`;
}

function checkKeyAndGeneration(key: string, generation: number): void {
  assertConnectorKey(key);
  if (!Number.isSafeInteger(generation) || generation < 1) {
    throw invalidShimInput(key, 'the generation is not a positive integer');
  }
}

/** The generation of the shim currently published for `key`, or undefined when none is. */
export async function publishedGeneration(
  binDir: string,
  key: string,
): Promise<number | undefined> {
  try {
    return readGenerationMarker(await readFile(join(resolve(binDir), shimCommand(key)), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Keys of every shim published in `binDir` (an absent folder holds none). */
export async function listShimKeys(binDir: string): Promise<string[]> {
  const names = await readdir(resolve(binDir)).catch(() => [] as string[]);
  return names
    .filter((name) => name.startsWith(SHIM_PREFIX))
    .map((name) => name.slice(SHIM_PREFIX.length))
    .filter((key) => CONNECTOR_KEY_PATTERN.test(key))
    .sort();
}

async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode, flush: true });
    await chmod(temp, mode);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Writes `<binDir>/tutti-connector-<key>` (mode 0700) that execs the entrypoint, atomically.
 * Refuses a generation older than the one already published (TUTTI_ERR_SHIM_STALE_GENERATION);
 * publishing the same generation again rewrites it.
 * @example await publishShim({ binDir, key: 'github', generation: 2, entrypoint: { command: '/r/bin/gh', args: [] } });
 */
export async function publishShim(options: PublishShimOptions): Promise<PublishedShim> {
  const { key, generation, entrypoint } = options;
  checkKeyAndGeneration(key, generation);
  const input = {
    key,
    generation,
    entrypoint,
    ...(options.credential && { credential: options.credential }),
  };
  const sh = renderShScript(input);
  const windows = options.windows ?? process.platform === 'win32';
  const cmd = windows ? renderCmdScript(input) : undefined;
  const binDir = resolve(options.binDir);
  const path = join(binDir, shimCommand(key));
  return withKeyLock(path, async () => {
    await mkdir(binDir, { recursive: true, mode: 0o700 });
    const published = await publishedGeneration(binDir, key);
    if (published !== undefined && published > generation) {
      throw new TuttiError('TUTTI_ERR_SHIM_STALE_GENERATION', { key, generation, published });
    }
    if (cmd !== undefined) await writeAtomically(`${path}.cmd`, cmd, 0o700);
    await writeAtomically(path, sh, 0o700);
    return { command: shimCommand(key), path, generation };
  });
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Removes connector `key`'s shim (and its `.cmd` twin) only when it was published at
 * exactly `generation`. Returns true when it removed it.
 */
export async function removeShim(options: RemoveShimOptions): Promise<boolean> {
  const { key, generation } = options;
  checkKeyAndGeneration(key, generation);
  const binDir = resolve(options.binDir);
  const path = join(binDir, shimCommand(key));
  return withKeyLock(path, async () => {
    if ((await publishedGeneration(binDir, key)) !== generation) return false;
    await unlinkIfPresent(`${path}.cmd`);
    await unlinkIfPresent(path);
    return true;
  });
}
