/**
 * App-server descriptors: everything that differs between agents speaking the Codex
 * `app-server` protocol (Codex, Tutti Agent) is data here, so no code branches on a name.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** How to start one kind of app-server agent and where its config home lives. */
export interface AppServerDescriptor {
  /** Provider id, e.g. `codex`; used in logs and error details only. */
  readonly id: string;
  /** Executable to spawn (a path, or a name found on the prepared PATH). */
  readonly command: string;
  /** Arguments that start the app-server on stdio, e.g. `['app-server']`. */
  readonly args: readonly string[];
  /** Environment variable that points the agent at its config home. */
  readonly homeEnvVar: 'CODEX_HOME' | 'TUTTI_AGENT_HOME';
  /** The user's own config home (its `config.toml` is merged in); none when absent. */
  readonly userHome?: string;
}

/** Overrides of a built-in descriptor (tests point `command` at a local binary). */
export type DescriptorOverrides = Partial<
  Pick<AppServerDescriptor, 'command' | 'args' | 'userHome'>
>;

/**
 * Typed identity helper for a descriptor.
 * @example defineAppServerDescriptor({ id: 'x', command: 'x', args: ['app-server'], homeEnvVar: 'CODEX_HOME' })
 */
export function defineAppServerDescriptor(descriptor: AppServerDescriptor): AppServerDescriptor {
  return Object.freeze({ ...descriptor, args: Object.freeze([...descriptor.args]) });
}

/** Codex: `codex app-server`, config home `CODEX_HOME` (default `~/.codex`). */
export function createCodexDescriptor(overrides: DescriptorOverrides = {}): AppServerDescriptor {
  return defineAppServerDescriptor({
    id: 'codex',
    command: 'codex',
    args: ['app-server'],
    homeEnvVar: 'CODEX_HOME',
    userHome: process.env.CODEX_HOME ?? join(homedir(), '.codex'),
    ...overrides,
  });
}

/** Tutti Agent: `tutti-agent app-server`, config home `TUTTI_AGENT_HOME` (default `~/.tutti-agent`). */
export function createTuttiAgentDescriptor(
  overrides: DescriptorOverrides = {},
): AppServerDescriptor {
  return defineAppServerDescriptor({
    id: 'tutti-agent',
    command: 'tutti-agent',
    args: ['app-server'],
    homeEnvVar: 'TUTTI_AGENT_HOME',
    userHome: process.env.TUTTI_AGENT_HOME ?? join(homedir(), '.tutti-agent'),
    ...overrides,
  });
}
