/**
 * Resolves the release-relative commands, arguments and skills folder of a manifest
 * against the folder its release is installed in. Pure: it touches no file.
 *
 * A command is never taken from the folder a process happens to run in: one that names a
 * path (holds a `/` or `\`) without being absolute is inside the release, `bin/tool`
 * exactly like `./bin/tool`; only a bare name (`node`) is looked up on PATH.
 */
import { isAbsolute, join, resolve } from 'node:path';
import {
  type ConnectorManifest,
  DEFAULT_SKILLS_DIR,
  isStdioMcp,
  type RemoteMcp,
} from './manifest-schema.js';
import type { SandboxDeclaration } from './sandbox-schema.js';

/** A stdio MCP server with absolute release paths. */
export interface ResolvedStdioMcp {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Its `sandbox` block, when the manifest declares one. */
  readonly sandbox?: SandboxDeclaration;
}

/** A remote MCP endpoint (nothing to resolve; carried for a uniform shape). */
export interface ResolvedRemoteMcp extends Readonly<RemoteMcp> {
  readonly transport: 'http';
}

/** The paths of one installed release, ready to spawn or publish. */
export interface ResolvedRelease {
  /** Absolute folder of the release. */
  readonly releaseDir: string;
  readonly mcp?: ResolvedStdioMcp | ResolvedRemoteMcp;
  readonly cli?: { readonly command: string; readonly args: readonly string[] };
  /** Absolute folder that holds `<skill>/SKILL.md` (it may not exist). */
  readonly skillsDir: string;
}

/** `./x` -> `<releaseDir>/x`; anything else (a PATH name, an absolute path) unchanged. */
export function resolveReleasePath(value: string, releaseDir: string): string {
  return value.startsWith('./') ? join(releaseDir, value.slice(2)) : value;
}

/** True when `command` names a file by a relative path (`./x`, `bin/x`), not a PATH name. */
export function isReleaseRelativeCommand(command: string): boolean {
  return !isAbsolute(command) && /[\\/]/.test(command);
}

/**
 * A command resolved against the release: a relative path (`./bin/x` or `bin/x`) ->
 * `<releaseDir>/bin/x`; an absolute path or a bare PATH name unchanged.
 */
export function resolveReleaseCommand(command: string, releaseDir: string): string {
  return isReleaseRelativeCommand(command) ? join(releaseDir, command) : command;
}

/**
 * The manifest's commands, arguments and skills folder resolved against `releaseDir`.
 * @example resolveReleasePaths(manifest, '/home/me/.tutti/releases/ab12...').cli?.command
 */
export function resolveReleasePaths(
  manifest: ConnectorManifest,
  releaseDir: string,
): ResolvedRelease {
  const root = isAbsolute(releaseDir) ? releaseDir : resolve(releaseDir);
  const paths = (values: readonly string[]) => values.map((v) => resolveReleasePath(v, root));
  let mcp: ResolvedRelease['mcp'];
  if (manifest.mcp && isStdioMcp(manifest.mcp)) {
    mcp = {
      transport: 'stdio',
      command: resolveReleaseCommand(manifest.mcp.command, root),
      args: paths(manifest.mcp.args),
      env: { ...manifest.mcp.env },
      ...(manifest.mcp.sandbox && { sandbox: manifest.mcp.sandbox }),
    };
  } else if (manifest.mcp) {
    mcp = { transport: 'http', ...manifest.mcp };
  }
  const cli = manifest.cli
    ? {
        command: resolveReleaseCommand(manifest.cli.command, root),
        args: paths(manifest.cli.args),
      }
    : undefined;
  const skillsDir = join(root, manifest.skills ?? DEFAULT_SKILLS_DIR);
  return { releaseDir: root, ...(mcp && { mcp }), ...(cli && { cli }), skillsDir };
}
