/**
 * Where a plugin package's code is: the `tutti-source` export condition when tutti itself
 * runs from TypeScript sources (vitest), else the built entry `tutti.plugin`.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** `source`: prefer TS sources; `dist`: built JavaScript only. */
export type EntryMode = 'source' | 'dist';

/** The mode tutti itself runs in: `source` when this module is TypeScript. */
export const DEFAULT_ENTRY_MODE: EntryMode = import.meta.url.endsWith('.ts') ? 'source' : 'dist';

/** The parts of package.json plugin discovery reads. */
export interface PluginPackageJson {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
  tutti?: { plugin?: string };
}

/** Reads `dir/package.json`; undefined when there is none or it is not JSON. */
export async function readPackageJson(dir: string): Promise<PluginPackageJson | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    return value !== null && typeof value === 'object' ? (value as PluginPackageJson) : undefined;
  } catch {
    return undefined;
  }
}

/** True when the package declares itself a tutti plugin (`"tutti": { "plugin": ... }`). */
export function declaresPlugin(pkg: PluginPackageJson | undefined): boolean {
  return typeof pkg?.tutti?.plugin === 'string' && pkg.tutti.plugin.length > 0;
}

/**
 * Absolute path of the plugin's entry module. `source` mode takes the `tutti-source`
 * condition of `exports["."]` when there is one; otherwise `tutti.plugin`, then `main`.
 */
export function resolvePluginEntry(
  dir: string,
  pkg: PluginPackageJson,
  mode: EntryMode,
): string | undefined {
  if (mode === 'source') {
    const source = sourceCondition(pkg.exports);
    if (source) return resolve(dir, source);
  }
  const entry = pkg.tutti?.plugin ?? pkg.main;
  return entry ? resolve(dir, entry) : undefined;
}

function sourceCondition(exports: unknown): string | undefined {
  if (exports === null || typeof exports !== 'object') return undefined;
  const record = exports as Record<string, unknown>;
  const root = '.' in record ? record['.'] : record;
  if (root === null || typeof root !== 'object') return undefined;
  const value = (root as Record<string, unknown>)['tutti-source'];
  return typeof value === 'string' ? value : undefined;
}
