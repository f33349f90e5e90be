/**
 * A session-scoped home for an ACP agent, built from its descriptor, beside the user's own
 * setup and never instead of it. Before the agent starts, the home is made in the session's
 * folder and named by the agent's home variable: for an agent that reads it in addition to
 * the user's folder (`adds`) it holds only the entries the descriptor links and seeds; for
 * one that reads only it (`replaces`) every entry of the user's folder is linked in (never
 * copied), and what the agent writes that it needs later (its sessions) lives in the user's
 * folder, linked. After `initialize` said the session is bound, the connector skills are
 * linked into the agent's own skills folder and the guidance is written where the agent
 * reads its instructions. A plain session gets none of that.
 */
import { lstat, mkdir, readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { type SessionFiles, skillFolders } from '@tutti/core';
import type { AgentHome, GuidanceDelivery, SkillsDelivery } from './descriptors.js';

/** Folder of the agent's home inside the session folder. */
const HOME_DIR = 'home';

/** The user's own folder of the agent: the first candidate that names one. */
export function userFolder(home: AgentHome, env: Readonly<Record<string, string>>): string {
  for (const candidate of home.user) {
    const expanded = candidate
      .replace(/^~(?=\/|$)/, env.HOME ?? homedir())
      .replace(/\$([A-Z_][A-Z0-9_]*)/g, (whole, name: string) => env[name] ?? `\0${whole}`);
    if (!expanded.includes('\0')) return expanded;
  }
  return join(env.HOME ?? homedir(), `.${basename(home.env.toLowerCase())}`);
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

/** Creates the session home and resolves its path. */
export async function buildAgentHome(
  files: SessionFiles,
  home: AgentHome,
  skills: SkillsDelivery,
  guidance: GuidanceDelivery,
  env: Readonly<Record<string, string>>,
): Promise<string> {
  const dir = join(await files.ensure(), HOME_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const user = userFolder(home, env);
  for (const [name, content] of Object.entries(home.seed)) {
    if (name.endsWith('/')) await mkdir(join(dir, name), { recursive: true, mode: 0o700 });
    else await files.write(join(HOME_DIR, name), content);
  }
  const own = new Set(Object.keys(home.seed).map((name) => name.replace(/\/$/, '')));
  if (skills.via === 'home') own.add(skills.dir);
  // Files the guidance is written to are the session's own (a composed one holds the user's text).
  if (guidance.via === 'home-file') own.add(guidance.file);
  if (guidance.via === 'config-file') {
    own.add(guidance.file);
    own.add(guidance.config);
  }
  // What the agent writes and needs later lives in the user's folder, linked here.
  for (const name of home.keep) {
    await mkdir(join(user, name), { recursive: true, mode: 0o700 });
  }
  const entries =
    home.mode === 'replaces' || home.link.includes('*')
      ? await readdir(user).catch(() => [] as string[])
      : home.link.filter((name) => name !== '*');
  for (const name of new Set([...entries, ...home.keep])) {
    if (own.has(name) || !(await exists(join(user, name))) || (await exists(join(dir, name)))) {
      continue;
    }
    await files.link(join(user, name), join(HOME_DIR, name));
  }
  if (skills.via === 'home') {
    // The agent's skills folder: the user's own skills linked one by one, connector ones later.
    const skillsDir = join(dir, skills.dir);
    await mkdir(skillsDir, { recursive: true, mode: 0o700 });
    for (const name of await readdir(join(user, skills.dir)).catch(() => [] as string[])) {
      if (!(await exists(join(skillsDir, name)))) {
        await files.link(join(user, skills.dir, name), join(HOME_DIR, skills.dir, name));
      }
    }
  }
  return dir;
}

/** Links each connector skill into the home's skills folder; a user skill of that name stays. */
export async function linkConnectorSkills(
  files: SessionFiles,
  skills: Extract<SkillsDelivery, { via: 'home' }>,
  skillRoots: readonly string[],
): Promise<string[]> {
  const linked: string[] = [];
  for (const root of skillRoots) {
    for (const folder of await skillFolders(root)) {
      const name = basename(folder);
      const target = join(HOME_DIR, skills.dir, name);
      if (await exists(join(files.dir, target))) continue;
      await files.link(folder, target);
      linked.push(name);
    }
  }
  return linked;
}

/**
 * Writes the guidance where the agent reads its instructions: a file of the home (after the
 * user's own instructions when the descriptor names them), and a config file naming it.
 */
export async function writeGuidance(
  files: SessionFiles,
  delivery: Extract<GuidanceDelivery, { via: 'home-file' | 'config-file' }>,
  guidance: string,
  home: AgentHome,
  env: Readonly<Record<string, string>>,
): Promise<void> {
  const path = join(files.dir, HOME_DIR, delivery.file);
  if (delivery.via === 'home-file') {
    const user = delivery.include
      ? await readFile(join(userFolder(home, env), delivery.include), 'utf8').catch(() => '')
      : '';
    await files.write(
      join(HOME_DIR, delivery.file),
      user ? `${user.trimEnd()}\n\n${guidance}\n` : `${guidance}\n`,
    );
    return;
  }
  await files.write(join(HOME_DIR, delivery.file), `${guidance}\n`);
  const config = JSON.stringify(delivery.value).replaceAll('"{file}"', JSON.stringify(path));
  await files.write(join(HOME_DIR, delivery.config), config);
}
