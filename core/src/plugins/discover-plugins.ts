/**
 * Finds plugin candidates, in order: built-in providers (`<repo>/providers/*`), repo
 * plugins (`<repo>/plugins/*`), installed packages in node_modules that declare
 * `"tutti": { "plugin": ... }`, and the drop-in folder `<home>/plugins` (each subfolder or
 * `.mjs`/`.js` file). Nothing is imported here; a folder found twice is listed once.
 */
import type { InstalledAgentsFeed } from '../contracts/installed-agents.js';
import { readdir, realpath, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import {
  DEFAULT_ENTRY_MODE,
  declaresPlugin,
  type EntryMode,
  readPackageJson,
  resolvePluginEntry,
} from './plugin-entry.js';

/** Where a candidate was found. */
export type PluginSource = 'builtin' | 'repo' | 'package' | 'drop-in';

/** A plugin found on disk, not yet loaded. */
export interface PluginCandidate {
  readonly source: PluginSource;
  /** The folder or file it was found as. */
  readonly origin: string;
  /** The module to import; absent when none could be resolved (see `problem`). */
  readonly entry?: string;
  /** Why no entry could be resolved. */
  readonly problem?: string;
}

/** Where to look; every part is optional. */
export interface DiscoverOptions {
  /** Repository root holding `providers/*` and `plugins/*`. */
  readonly repoRoot?: string;
  /** node_modules folders to scan for installed plugins. */
  readonly nodeModules?: readonly string[];
  /** tutti home; its `plugins` folder is the drop-in folder. */
  readonly home?: string;
  readonly mode?: EntryMode;
  /** Handed to every plugin (see `PluginHost.logger`). */
  readonly logger?: {
    info(fields: Record<string, unknown>, message: string): void;
    warn(fields: Record<string, unknown>, message: string): void;
  };
  /** Handed to every plugin (see `PluginHost.installedAgents`). */
  readonly installedAgents?: InstalledAgentsFeed;
}

/** Lists plugin candidates in load order. */
export async function discoverPlugins(options: DiscoverOptions): Promise<PluginCandidate[]> {
  const mode = options.mode ?? DEFAULT_ENTRY_MODE;
  const seen = new Set<string>();
  const found: PluginCandidate[] = [];
  const add = async (candidate: PluginCandidate | undefined) => {
    if (!candidate) return;
    const real = await realpath(candidate.origin).catch(() => candidate.origin);
    if (seen.has(real)) return;
    seen.add(real);
    found.push(candidate);
  };
  if (options.repoRoot) {
    for (const dir of await subdirs(join(options.repoRoot, 'providers'))) {
      await add(await fromPackage(dir, 'builtin', mode, true));
    }
    for (const dir of await subdirs(join(options.repoRoot, 'plugins'))) {
      await add(await fromPackage(dir, 'repo', mode, true));
    }
  }
  for (const modules of options.nodeModules ?? []) {
    for (const dir of await packageDirs(modules)) {
      await add(await fromPackage(dir, 'package', mode, true));
    }
  }
  if (options.home) {
    const dropIn = join(options.home, 'plugins');
    for (const name of await names(dropIn)) {
      const path = join(dropIn, name);
      if (await isDir(path)) await add(await fromDropInDir(path, mode));
      else if (['.mjs', '.js'].includes(extname(name))) {
        await add({ source: 'drop-in', origin: path, entry: path });
      }
    }
  }
  return found;
}

async function fromPackage(
  dir: string,
  source: PluginSource,
  mode: EntryMode,
  mustDeclare: boolean,
): Promise<PluginCandidate | undefined> {
  const pkg = await readPackageJson(dir);
  if (!pkg || (mustDeclare && !declaresPlugin(pkg))) return undefined;
  const entry = resolvePluginEntry(dir, pkg, mode);
  if (entry) return { source, origin: dir, entry };
  return { source, origin: dir, problem: 'package.json names no entry ("tutti.plugin" or "main")' };
}

async function fromDropInDir(dir: string, mode: EntryMode): Promise<PluginCandidate> {
  const fromPkg = await fromPackage(dir, 'drop-in', mode, false);
  if (fromPkg) return fromPkg;
  for (const index of ['index.mjs', 'index.js']) {
    const path = join(dir, index);
    if (!(await isDir(path)) && (await exists(path))) {
      return { source: 'drop-in', origin: dir, entry: path };
    }
  }
  return { source: 'drop-in', origin: dir, problem: 'no package.json, index.mjs or index.js' };
}

/** `node_modules/<name>` and `node_modules/@scope/<name>` folders. */
async function packageDirs(modules: string): Promise<string[]> {
  const dirs: string[] = [];
  for (const name of await names(modules)) {
    if (name.startsWith('.')) continue;
    const path = join(modules, name);
    if (name.startsWith('@')) dirs.push(...(await subdirs(path)));
    else if (await isDir(path)) dirs.push(path);
  }
  return dirs;
}

async function subdirs(dir: string): Promise<string[]> {
  const dirs: string[] = [];
  for (const name of await names(dir)) {
    const path = join(dir, name);
    if (await isDir(path)) dirs.push(path);
  }
  return dirs;
}

async function names(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).sort();
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}
