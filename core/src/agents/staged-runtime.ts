/**
 * What installing a registry entry's runtime hands the transaction: the staged folder (to
 * become `<home>/agents/<id>/<version>/`) and how the agent runs, its program named relative
 * to that folder, so the record can name the absolute path once the folder is in place.
 */
import { chmod, lstat, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { TuttiError } from '../errors/index.js';

/** A runtime installed into a staging folder. */
export interface StagedRuntime {
  /** The entry's version: the folder name under `<home>/agents/<id>/`. */
  readonly version: string;
  /** The staged folder. */
  readonly dir: string;
  /** The program, relative to `dir` (`/`-separated). */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** What installing a runtime needs besides the entry. */
export interface RuntimeContext {
  /** Environment for npm and uv (never logged). */
  readonly env: NodeJS.ProcessEnv;
  readonly allowInstallScripts: boolean;
}

/** True when `path` is `root` or inside it (both absolute). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Resolves a program `cmd` (e.g. `./bin/agent`) against `base`, which lies in `root`: it
 * must stay inside `root`, even through links, and be a regular file. Answers its path
 * relative to `root`.
 */
export async function programInside(
  id: string,
  root: string,
  base: string,
  cmd: string,
): Promise<string> {
  const refuse = (problem: string) =>
    new TuttiError('TUTTI_ERR_AGENT_INSTALL_FAILED', {
      id,
      reason: `the program "${cmd.slice(0, 200)}" ${problem}`,
    });
  if (isAbsolute(cmd)) throw refuse('is an absolute path: name it relative to the package');
  const path = resolve(base, cmd);
  if (!isInside(root, path)) throw refuse('lies outside the installed files');
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw refuse('is not among the installed files');
  }
  if (!isInside(await realpath(root), real)) throw refuse('links outside the installed files');
  if (!(await lstat(real)).isFile()) throw refuse('is not a regular file');
  return relative(root, path).split(sep).join('/');
}

/** Makes a program executable (0755) when it has no executable bit. */
export async function makeExecutable(path: string): Promise<void> {
  if (((await stat(path)).mode & 0o111) === 0) await chmod(path, 0o755);
}
