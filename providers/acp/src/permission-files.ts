/**
 * The files a descriptor's permission mode writes into an agent's session home, so the
 * agent asks the daemon before its tools run: a setting merged over the user's own file of
 * that name (JSON, or TOML for `.toml`), or a text of its own (an exec-policy rule file).
 * They are written before the agent starts (it reads its settings then), are the session's
 * own (never links into the user's folder), and a plain session gets them too.
 */
import { lstat, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import TOML from '@iarna/toml';
import type { SessionFiles } from '@tutti/core';
import { userFolder } from './agent-home.js';
import type { AgentHome, PermissionModeSetup } from './descriptors.js';

type Table = Record<string, unknown>;

function isTable(value: unknown): value is Table {
  return (
    Boolean(value) && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
  );
}

/** The key of a table merged into every table its level already has. */
const EACH = '{each}';

/**
 * `over` merged into `base`: tables merge, anything else is replaced; an `"{each}"` key of
 * `over` is merged into every table `base` already has at that level.
 */
export function mergeSettings(base: unknown, over: Table): Table {
  const merged: Table = isTable(base) ? { ...base } : {};
  const every = over[EACH];
  if (isTable(every)) {
    for (const [key, value] of Object.entries(merged)) {
      if (isTable(value)) merged[key] = mergeSettings(value, every);
    }
  }
  for (const [key, value] of Object.entries(over)) {
    if (key === EACH) continue;
    merged[key] = isTable(value) ? mergeSettings(merged[key], value) : value;
  }
  return merged;
}

/** Reads the user's file (an empty table when there is none). */
async function userSettings(path: string, toml: boolean): Promise<Table> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return {};
  return toml ? (TOML.parse(text) as Table) : (JSON.parse(text) as Table);
}

/** Values a permission file may name: `{cwd}`, `{connectorUrl}` (absent for a plain session). */
export type PermissionValues = Readonly<Partial<Record<'cwd' | 'connectorUrl', string>>>;

const PLACEHOLDER = /\{(cwd|connectorUrl)\}/g;

/**
 * `value` with its placeholders filled, in keys and strings; an entry that names a value
 * there is none of is left out (undefined at the top).
 */
export function fillValues(value: unknown, values: PermissionValues): unknown {
  if (typeof value === 'string') {
    let missing = false;
    const filled = value.replace(PLACEHOLDER, (_whole, name: 'cwd' | 'connectorUrl') => {
      const known = values[name];
      if (known === undefined) missing = true;
      return known ?? '';
    });
    return missing ? undefined : filled;
  }
  if (Array.isArray(value)) return value.map((item) => fillValues(item, values));
  if (isTable(value)) {
    const table: Table = {};
    for (const [key, inner] of Object.entries(value)) {
      const name = fillValues(key, values);
      const filled = fillValues(inner, values);
      if (typeof name === 'string' && filled !== undefined) table[name] = filled;
    }
    return table;
  }
  return value;
}

/** Writes the files of `setup` into the home; `env` resolves the user's folder. */
export async function writePermissionFiles(
  files: SessionFiles,
  home: AgentHome,
  setup: PermissionModeSetup,
  env: Readonly<Record<string, string>>,
  values: PermissionValues,
): Promise<void> {
  const here = join('home', home.subdir ?? '');
  for (const [name, file] of Object.entries(setup.files)) {
    // A link left by an earlier start of the session must not lead a write into the user's folder.
    const top = join(files.dir, here, name.split('/')[0]!);
    if ((await lstat(top).catch(() => undefined))?.isSymbolicLink()) await rm(top);
    if ('text' in file) {
      await files.write(join(here, name), file.text);
      continue;
    }
    const toml = name.endsWith('.toml');
    // An agent that reads the user's folder beside the home (`adds`) merges the two itself.
    const base =
      home.mode === 'replaces' ? await userSettings(join(userFolder(home, env), name), toml) : {};
    const merged = mergeSettings(base, fillValues(file.merge, values) as Table);
    await files.write(
      join(here, name),
      toml ? TOML.stringify(merged as TOML.JsonMap) : `${JSON.stringify(merged, null, 2)}\n`,
    );
  }
}
