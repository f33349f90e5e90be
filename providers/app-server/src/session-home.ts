/**
 * A session-isolated config home for one app-server agent session, in the session's own
 * folder (0700): `config.toml` (0600, it holds the bearer token) is the projected config
 * (the user's config plus the bindings), and the few user files the agent needs are linked,
 * never copied (login, global instructions, user skills). The host removes the folder when
 * the session ends; a login the agent rotated meanwhile is written back first.
 */
import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type MCPServerBinding, type SessionFiles, TuttiError } from '@tutti/core';
import { parseConfig, projectBindings, stringifyConfig, type TomlTable } from './codex-config.js';
import type { AppServerDescriptor } from './descriptor.js';

/** Minimal pino-compatible logger the engines write to. Never given secrets. */
export interface EngineLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  info?(fields: Record<string, unknown>, message: string): void;
}

/**
 * User files linked (not copied) into the session home when present: `auth.json` so the
 * user's login works and token refreshes reach the user's own file, `AGENTS.md` (global
 * instructions) and `skills` (the user's own skills). Sessions, logs and state databases
 * stay in the session home.
 */
export const LINKED_USER_FILES = Object.freeze(['auth.json', 'AGENTS.md', 'skills']);

/**
 * Folders the agent writes and needs later, kept in the user's own home (created there when
 * missing) and linked: `sessions` holds the threads' rollouts, which `thread/resume` reads
 * after a daemon restart and the user's own codex can resume too.
 */
export const KEPT_USER_FOLDERS = Object.freeze(['sessions']);

/** A written session home. */
export interface SessionHome {
  /** The folder; the agent gets it as `descriptor.homeEnvVar`. */
  readonly dir: string;
  /** Its `config.toml` (mode 0600). */
  readonly configPath: string;
  /** Writes back a login the agent rotated in the session. Idempotent. */
  dispose(): Promise<void>;
}

/** The user's `config.toml` parsed, or an empty table when there is none. */
export async function readUserConfig(descriptor: AppServerDescriptor): Promise<TomlTable> {
  if (!descriptor.userHome) return {};
  const path = join(descriptor.userHome, 'config.toml');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    return parseConfig(text);
  } catch (error) {
    throw new TuttiError(
      'TUTTI_ERR_PROVIDER_USER_CONFIG_INVALID',
      { path, provider: descriptor.id, reason: firstLine(error) },
      { cause: error },
    );
  }
}

/** The session's config: the user's, plus one `[mcp_servers.<name>]` per binding (ours win). */
export async function sessionConfig(
  descriptor: AppServerDescriptor,
  bindings: readonly MCPServerBinding[],
  logger?: EngineLogger,
): Promise<TomlTable> {
  const { config, replaced } = projectBindings(await readUserConfig(descriptor), bindings);
  for (const name of replaced) {
    logger?.warn(
      { provider: descriptor.id, server: name },
      'the user config has an MCP server with the name of a tutti binding; the binding replaces it in this session',
    );
  }
  return config;
}

/** Writes `config` as the home's `config.toml` and links the user's files into it. */
export async function writeSessionHome(
  files: SessionFiles,
  descriptor: AppServerDescriptor,
  config: TomlTable,
): Promise<SessionHome> {
  const dir = await files.ensure();
  await files.write('config.toml', stringifyConfig(config));
  if (descriptor.userHome) {
    for (const name of KEPT_USER_FOLDERS) {
      await mkdir(join(descriptor.userHome, name), { recursive: true, mode: 0o700 });
      if (!(await exists(join(dir, name)))) await files.link(join(descriptor.userHome, name), name);
    }
    for (const name of LINKED_USER_FILES) {
      if (!(await exists(join(descriptor.userHome, name)))) continue;
      if (!(await exists(join(dir, name)))) await files.link(join(descriptor.userHome, name), name);
    }
  }
  return sessionHome(files, descriptor);
}

/** The session home already written into `files` (nothing is written). */
export function sessionHome(files: SessionFiles, descriptor: AppServerDescriptor): SessionHome {
  let disposed = false;
  return {
    dir: files.dir,
    configPath: join(files.dir, 'config.toml'),
    async dispose() {
      if (disposed || !descriptor.userHome) return;
      disposed = true;
      const userLogin = join(descriptor.userHome, 'auth.json');
      // Only a login the session linked from the user's home is written back.
      if (await exists(userLogin)) await writeBackLogin(join(files.dir, 'auth.json'), userLogin);
    },
  };
}

/**
 * An agent that refreshes its login may replace the linked `auth.json` with a new file
 * (write and rename). Copy such a file back so the rotated token is not lost.
 */
async function writeBackLogin(sessionFile: string, userFile: string): Promise<void> {
  const stat = await lstat(sessionFile).catch(() => undefined);
  // Still the link (or never there): nothing was rotated.
  if (!stat?.isFile()) return;
  const next = `${userFile}.tutti-next`;
  await copyFile(sessionFile, next, constants.COPYFILE_EXCL);
  await rename(next, userFile);
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n')[0] ?? '';
}
