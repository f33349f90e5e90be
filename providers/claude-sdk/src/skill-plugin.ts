/**
 * Delivers skill roots to Claude Code's own skill scanner as one local plugin: a session
 * folder with `.claude-plugin/plugin.json` and `skills/<name>` links to every folder of the
 * roots that holds a `SKILL.md`. (Skills under `additionalDirectories` were measured not to
 * load with `settingSources: []`; a plugin loads whatever the caller's setting sources.)
 * Claude Code names them `tutti-connector:<name>`.
 */
import { mkdir, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { EngineLogger } from './logger.js';

/** Name of the plugin (the prefix of its skills' names). */
export const SKILL_PLUGIN_NAME = 'tutti-connector';

const MAX_DEPTH = 4;

/** A session's skill plugin folder. */
export interface SkillPlugin {
  readonly dir: string;
  /** Names of the linked skill folders. */
  readonly skills: readonly string[];
  /** Removes the folder (the linked skills stay). Idempotent. */
  dispose(): Promise<void>;
}

/** Creates the plugin folder `dir` (inside the session's folder) for the given skill roots. */
export async function createSkillPlugin(
  skillRoots: readonly string[],
  options: { dir: string; logger?: EngineLogger },
): Promise<SkillPlugin> {
  const { dir } = options;
  const skills: string[] = [];
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await mkdir(join(dir, '.claude-plugin'));
    await mkdir(join(dir, 'skills'));
    await writeFile(
      join(dir, '.claude-plugin', 'plugin.json'),
      JSON.stringify({
        name: SKILL_PLUGIN_NAME,
        version: '0.1.0',
        description: 'Skills of the connectors installed in tutti.',
      }),
    );
    for (const root of skillRoots) {
      for (const folder of await skillFolders(root, 0)) {
        const name = basename(folder);
        if (skills.includes(name)) {
          options.logger?.warn(
            { skill: name, root },
            'a skill with this folder name is already linked; this one is skipped',
          );
          continue;
        }
        await symlink(folder, join(dir, 'skills', name));
        skills.push(name);
      }
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let disposed = false;
  return {
    dir,
    skills,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Folders under `root` (depth-bounded) that contain a `SKILL.md`. */
async function skillFolders(root: string, depth: number): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  if (entries.some((entry) => entry.name === 'SKILL.md' && !entry.isDirectory())) return [root];
  if (depth >= MAX_DEPTH) return [];
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(root, entry.name);
    const isDir =
      entry.isDirectory() ||
      (entry.isSymbolicLink() && (await stat(path).catch(() => undefined))?.isDirectory());
    if (isDir) found.push(...(await skillFolders(path, depth + 1)));
  }
  return found;
}
