/**
 * A session-scoped home for an ACP agent, built from its descriptor, beside the user's own
 * setup and never instead of it. Before the agent starts, the home is made in the session's
 * folder and named by the agent's home variable: for an agent that reads it in addition to
 * the user's folder (`adds`) it holds only the entries the descriptor links and seeds; for
 * one that reads only it (`replaces`) every entry of the user's folder is linked in (never
 * copied), and what the agent writes that it needs later (its sessions) lives in the user's
 * folder, linked. Declared non-secret entries (`copy`) are copied instead, so the session
 * may change them (home-copy.ts). After `initialize` said the session is bound, the
 * connector skills are linked into the agent's own skills folder (and that folder added to
 * a YAML list of a config file, skill-roots-yaml.ts) and the guidance is written where the
 * agent reads its instructions. A plain session gets none of that: its instructions file is
 * the user's own, linked.
 */
import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join, normalize } from 'node:path';
import { type SessionFiles, skillFolders } from '@tutti/core';
import type { AcpEngineLogger } from './acp-session.js';
import type { AgentHome, GuidanceDelivery, SkillsDelivery } from './descriptors.js';
import { copyUserEntries } from './home-copy.js';
import { mergeSkillRoots } from './skill-roots-yaml.js';

/** Folder of the agent's home inside the session folder. */
const HOME_DIR = 'home';

type Env = Readonly<Record<string, string>>;
type HomeFile = Extract<GuidanceDelivery, { via: 'home-file' }>;

/** The first candidate (`~/.x`, `$VAR/sub`) whose variables are all set, expanded. */
function firstResolved(candidates: readonly string[], env: Env): string | undefined {
  for (const candidate of candidates) {
    const expanded = candidate
      .replace(/^~(?=\/|$)/, env.HOME ?? homedir())
      .replace(/\$([A-Z_][A-Z0-9_]*)/g, (whole, name: string) => env[name] ?? `\0${whole}`);
    if (!expanded.includes('\0')) return expanded;
  }
  return undefined;
}

/** The user's own folder of the agent: the first candidate that names one. */
export function userFolder(home: AgentHome, env: Env): string {
  return (
    firstResolved(home.user, env) ??
    join(env.HOME ?? homedir(), `.${basename(home.env.toLowerCase())}`)
  );
}

/** Where the mirror of the user's folder is, relative to the session folder. */
function mirror(home: AgentHome): string {
  return join(HOME_DIR, home.subdir ?? '');
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

/** Creates the session home and resolves the path its variable names. */
export async function buildAgentHome(
  files: SessionFiles,
  home: AgentHome,
  skills: SkillsDelivery,
  guidance: GuidanceDelivery,
  env: Env,
  /** Paths the session writes itself (permission files): never linked from the user's folder. */
  written: readonly string[] = [],
  /** Where a `copy` entry that is not copied is reported. */
  logger?: AcpEngineLogger,
): Promise<string> {
  const root = join(await files.ensure(), HOME_DIR);
  const here = mirror(home);
  const dir = join(files.dir, here);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const user = userFolder(home, env);
  for (const [name, content] of Object.entries(home.seed)) {
    if (name.endsWith('/')) await mkdir(join(dir, name), { recursive: true, mode: 0o700 });
    else await files.write(join(here, name), content);
  }
  const own = new Set(Object.keys(home.seed).map((name) => name.replace(/\/$/, '')));
  for (const path of written) own.add(path.split('/')[0]!);
  if (skills.via === 'home') own.add(skills.dir);
  // A copied entry is not linked first; a folder on a nested one's way is linked, then made real.
  for (const name of home.copy ?? []) {
    const entry = normalize(name).replace(/\/+$/, '');
    if (!entry.includes('/')) own.add(entry);
  }
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
    await files.link(join(user, name), join(here, name));
  }
  for (const [name, candidates] of Object.entries(home.alsoLink ?? {})) {
    const target = firstResolved(candidates, env);
    if (target && (await exists(target)) && !(await exists(join(root, name)))) {
      await files.link(target, join(HOME_DIR, name));
    }
  }
  if (home.copy?.length) await copyUserEntries(user, dir, home.copy, logger);
  if (skills.via === 'home') {
    // The agent's skills folder: the user's own skills linked one by one, connector ones later.
    const skillsDir = join(dir, skills.dir);
    await mkdir(skillsDir, { recursive: true, mode: 0o700 });
    for (const name of await readdir(join(user, skills.dir)).catch(() => [] as string[])) {
      if (!(await exists(join(skillsDir, name)))) {
        await files.link(join(user, skills.dir, name), join(here, skills.dir, name));
      }
    }
  }
  if (guidance.via === 'home-file') await resetGuidance(files, guidance, home, env);
  return root;
}

/**
 * Links each connector skill into the home's skills folder (a user skill of that name
 * stays), and adds that folder to the descriptor's `yamlList`, if any.
 */
export async function linkConnectorSkills(
  files: SessionFiles,
  home: AgentHome,
  skills: Extract<SkillsDelivery, { via: 'home' }>,
  skillRoots: readonly string[],
  logger?: AcpEngineLogger,
): Promise<string[]> {
  const linked: string[] = [];
  for (const root of skillRoots) {
    for (const folder of await skillFolders(root)) {
      const name = basename(folder);
      const target = join(mirror(home), skills.dir, name);
      if (await exists(join(files.dir, target))) continue;
      await files.link(folder, target);
      linked.push(name);
    }
  }
  if (skills.yamlList) {
    const folder = join(files.dir, mirror(home), skills.dir);
    await mergeSkillRoots(files, mirror(home), skills.yamlList, [folder], logger);
  }
  return linked;
}

/**
 * Takes back the connector skills `linked` before the agent started (a session read at
 * start that turned out plain): the user's own skills stay, and so does the folder.
 */
export async function unlinkConnectorSkills(
  files: SessionFiles,
  home: AgentHome,
  skills: Extract<SkillsDelivery, { via: 'home' }>,
  linked: readonly string[],
): Promise<void> {
  for (const name of linked) {
    await rm(join(files.dir, mirror(home), skills.dir, name), { force: true });
  }
}

/** The text of the home's guidance file: the user's own `include` file first, if any. */
export async function guidanceText(
  delivery: HomeFile,
  guidance: string,
  home: AgentHome,
  env: Env,
): Promise<string> {
  const user = delivery.include
    ? await readFile(join(userFolder(home, env), delivery.include), 'utf8').catch(() => '')
    : '';
  return user ? `${user.trimEnd()}\n\n${guidance}\n` : `${guidance}\n`;
}

/**
 * Writes the guidance where the agent reads its instructions: a file of the home (after the
 * user's own instructions when the descriptor names them), or a file and a config naming it.
 */
export async function writeGuidance(
  files: SessionFiles,
  delivery: Extract<GuidanceDelivery, { via: 'home-file' | 'config-file' }>,
  guidance: string,
  home: AgentHome,
  env: Env,
): Promise<void> {
  const here = mirror(home);
  if (delivery.via === 'home-file') {
    await files.write(join(here, delivery.file), await guidanceText(delivery, guidance, home, env));
    return;
  }
  const path = join(files.dir, here, delivery.file);
  await files.write(join(here, delivery.file), `${guidance}\n`);
  const value = JSON.parse(
    JSON.stringify(delivery.value).replaceAll('"{file}"', JSON.stringify(path)),
  ) as Record<string, unknown>;
  // The config may hold what makes the agent ask (written before it started): merged into.
  const written = await readFile(join(files.dir, here, delivery.config), 'utf8')
    .then((text) => JSON.parse(text) as Record<string, unknown>)
    .catch(() => ({}));
  await files.write(join(here, delivery.config), JSON.stringify({ ...written, ...value }));
}

/**
 * Puts the home's instructions file back to what a session without guidance reads: the
 * user's own file linked when the file stands for it (same name), else nothing.
 */
export async function resetGuidance(
  files: SessionFiles,
  delivery: HomeFile,
  home: AgentHome,
  env: Env,
): Promise<void> {
  const name = join(mirror(home), delivery.file);
  await rm(join(files.dir, name), { force: true });
  const user = join(userFolder(home, env), delivery.file);
  if (delivery.include === delivery.file && (await exists(user))) await files.link(user, name);
}

/**
 * Copies back each `writeBack` file the agent replaced in the home (a refreshed login
 * written and renamed over the link), so the user's own file is not left stale. Only a file
 * the session linked from the user's folder is written back.
 */
export async function writeBackFiles(
  files: SessionFiles,
  home: AgentHome,
  env: Env,
): Promise<void> {
  for (const name of home.writeBack ?? []) {
    const session = join(files.dir, mirror(home), name);
    const user = join(userFolder(home, env), name);
    const stat = await lstat(session).catch(() => undefined);
    // Still the link (or never there): nothing was replaced.
    if (!stat?.isFile() || !(await exists(user))) continue;
    const next = `${user}.tutti-next`;
    await rm(next, { force: true });
    await copyFile(session, next, constants.COPYFILE_EXCL);
    await rename(next, user);
  }
}
