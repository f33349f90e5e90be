/**
 * A session-isolated config home for one app-server agent session: a 0700 folder whose
 * `config.toml` (0600, it holds the bearer token) is the user's config plus the prepared
 * bindings, and links to the few user files the agent needs (login, global instructions,
 * user skills). The whole folder is removed when the session ends.
 */
import { constants } from 'node:fs';
import {
  copyFile,
  lstat,
  mkdtemp,
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MCPServerBinding, TuttiError } from '@tutti/core';
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
 * stay in the session home and go away with it.
 */
export const LINKED_USER_FILES = Object.freeze(['auth.json', 'AGENTS.md', 'skills']);

/** A live session home. */
export interface SessionHome {
  /** The folder (mode 0700); the agent gets it as `descriptor.homeEnvVar`. */
  readonly dir: string;
  /** Its `config.toml` (mode 0600). */
  readonly configPath: string;
  /** Rewrites `config.toml` for new bindings (e.g. a re-issued token). */
  writeBindings(bindings: readonly MCPServerBinding[]): Promise<void>;
  /** Removes the folder; writes back a login the agent refreshed in place. Idempotent. */
  dispose(): Promise<void>;
}

/** Options of {@link createSessionHome}. */
export interface SessionHomeOptions {
  readonly descriptor: AppServerDescriptor;
  readonly bindings: readonly MCPServerBinding[];
  /** Parent folder of session homes (default: the OS temp folder). */
  readonly baseDir?: string;
  readonly logger?: EngineLogger;
}

/** Creates the session home and writes its `config.toml`. */
export async function createSessionHome(options: SessionHomeOptions): Promise<SessionHome> {
  const { descriptor, logger } = options;
  const userConfig = await readUserConfig(descriptor);
  // mkdtemp creates the folder with mode 0700.
  const dir = await mkdtemp(join(options.baseDir ?? tmpdir(), `tutti-${descriptor.id}-`));
  const configPath = join(dir, 'config.toml');
  const linked: string[] = [];
  let disposed = false;

  const writeBindings = async (bindings: readonly MCPServerBinding[]) => {
    const { config, replaced } = projectBindings(userConfig, bindings);
    for (const name of replaced) {
      logger?.warn(
        { provider: descriptor.id, server: name },
        'the user config has an MCP server with the name of a tutti binding; the binding replaces it in this session',
      );
    }
    const next = `${configPath}.next`;
    await writeFile(next, stringifyConfig(config), { mode: 0o600, flag: 'w' });
    await rename(next, configPath);
  };

  try {
    await writeBindings(options.bindings);
    if (descriptor.userHome) {
      for (const name of LINKED_USER_FILES) {
        const source = join(descriptor.userHome, name);
        if (await exists(source)) {
          await symlink(source, join(dir, name));
          linked.push(name);
        }
      }
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    dir,
    configPath,
    writeBindings,
    async dispose() {
      if (disposed) return;
      disposed = true;
      if (descriptor.userHome && linked.includes('auth.json')) {
        await writeBackLogin(join(dir, 'auth.json'), join(descriptor.userHome, 'auth.json'));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The user's `config.toml` parsed, or an empty table when there is none. */
async function readUserConfig(descriptor: AppServerDescriptor): Promise<TomlTable> {
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

/**
 * An agent that refreshes its login may replace the linked `auth.json` with a new file
 * (write and rename). Copy such a file back so the rotated token is not lost.
 */
async function writeBackLogin(sessionFile: string, userFile: string): Promise<void> {
  const stat = await lstat(sessionFile).catch(() => undefined);
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
