/**
 * Connector releases for tests and benches: a release folder written from a few options
 * (by default running the stdio upstream fixture), or a writable copy of one of the
 * example releases. Folders made here are removed by `cleanUp` unless written under a
 * `parent` of the caller's.
 */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONNECTOR_FIXTURES, STDIO_SERVER } from './paths.js';
import { tempDir } from './temp-dirs.js';

/** Options of a release written by {@link writeRelease}. */
export interface ReleaseSpec {
  key: string;
  version?: string;
  /** The manifest's name and description (default: `Connector <key>`, `Test connector <key>.`). */
  name?: string;
  description?: string;
  /** Arguments of the stdio fixture (e.g. `['--tools', '3']`); absent: no MCP server. */
  serverArgs?: string[];
  /** Replace the MCP command (default `node`; e.g. a missing binary, to make a start fail). */
  command?: string;
  /** Run this fixture script instead of the stdio server (e.g. SILENT_SERVER). */
  script?: string;
  /** The manifest's `mcp.startTimeoutMs`. */
  startTimeoutMs?: number;
  /** A CLI entrypoint script body (a `.mjs` file run by node). */
  cli?: string;
  /** An api_key credential delivered in this env var. */
  apiKeyEnv?: string;
  /** Skills to ship: name -> SKILL.md text. */
  skills?: Record<string, string>;
  /** Write the release as `<parent>/<folder>` (default: a new temp folder removed by `cleanUp`). */
  parent?: string;
  /** The release's folder name under its parent (default: the key). */
  folder?: string;
}

/** Writes a connector release folder and returns its path. */
export async function writeRelease(spec: ReleaseSpec): Promise<string> {
  const dir = join(spec.parent ?? (await tempDir('tutti-release-')), spec.folder ?? spec.key);
  await mkdir(dir, { recursive: true });
  const manifest: Record<string, unknown> = {
    key: spec.key,
    name: spec.name ?? `Connector ${spec.key}`,
    description: spec.description ?? `Test connector ${spec.key}.`,
    version: spec.version ?? '1.0.0',
  };
  if (spec.serverArgs) {
    manifest.mcp = {
      command: spec.command ?? 'node',
      args: [spec.script ?? STDIO_SERVER, ...spec.serverArgs],
      ...(spec.startTimeoutMs !== undefined && { startTimeoutMs: spec.startTimeoutMs }),
    };
  }
  if (spec.cli !== undefined) {
    await mkdir(join(dir, 'bin'));
    await writeFile(join(dir, 'bin', 'cli.mjs'), spec.cli, { mode: 0o755 });
    manifest.cli = { command: 'node', args: ['./bin/cli.mjs'] };
  }
  if (spec.apiKeyEnv) manifest.auth = { kind: 'api_key', env: spec.apiKeyEnv };
  if (spec.skills) {
    for (const [name, text] of Object.entries(spec.skills)) {
      await mkdir(join(dir, 'skills', name), { recursive: true });
      await writeFile(join(dir, 'skills', name, 'SKILL.md'), text);
    }
  }
  await writeFile(join(dir, 'tutti-connector.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

/** A writable copy of the example release `name`, optionally with files changed. */
export async function fixtureCopy(
  name: string,
  changes: Record<string, string> = {},
): Promise<string> {
  const dir = join(await tempDir('tutti-release-'), name);
  await cp(join(CONNECTOR_FIXTURES, name), dir, { recursive: true });
  for (const [path, content] of Object.entries(changes)) await writeFile(join(dir, path), content);
  return dir;
}
