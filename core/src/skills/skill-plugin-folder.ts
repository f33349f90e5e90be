/**
 * Skill folders of skill roots, and skill roots as one local plugin folder in the layout
 * Claude Code loads plugins from: `.claude-plugin/plugin.json` and `skills/<name>` links to
 * every folder of the roots that holds a `SKILL.md`. Claude Code names its skills
 * `tutti-connector:<name>` (docs/agents.md says why a plugin, not `additionalDirectories`).
 */
import { mkdir, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** Told about a skill that is skipped. */
export interface SkillPluginLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

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

/**
 * Creates the plugin folder `dir` (inside the session's folder) for the given skill roots,
 * in place of what a previous materialization left there (a session restored over its
 * surviving folder): the same call twice gives the same folder.
 */
export async function createSkillPlugin(
  skillRoots: readonly string[],
  options: { dir: string; logger?: SkillPluginLogger },
): Promise<SkillPlugin> {
  const { dir } = options;
  const skills: string[] = [];
  try {
    await rm(dir, { recursive: true, force: true });
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
      for (const folder of await skillFolders(root)) {
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
export async function skillFolders(root: string, depth = 0): Promise<string[]> {
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
