/**
 * Test helpers for the connector runtime: connector releases that run the stdio upstream
 * fixture, a wired runtime on a temp home, and a quiet logger. Imported by tests only.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessGroupAlive } from '../process/index.js';
import { createConnectorMCPRegistry } from '../registry/index.js';
import { createConnectorCatalog } from '../catalog/index.js';
import { openStore } from '../store/index.js';
import { tempDir } from '../store/store-test-support.js';
import { type ConnectorRuntimeOptions, createConnectorRuntime } from './connector-runtime.js';
import type { RuntimeLogger } from './types.js';

/** The stdio MCP upstream fixture (tools echo, sleep, crash, add_tool, env_keys, ...). */
export const STDIO_SERVER = fileURLToPath(
  new URL('../../../test/fixtures/upstream/stdio-server.mjs', import.meta.url),
);

/** An upstream that never answers initialize (and ignores SIGTERM, with a child of its own). */
export const SILENT_SERVER = fileURLToPath(
  new URL('../../../test/fixtures/upstream/silent-server.mjs', import.meta.url),
);

/** A logger that keeps every line, so tests can check nothing secret was logged. */
export function memoryLogger(): RuntimeLogger & { lines: string[] } {
  const lines: string[] = [];
  const log = (object: object, message?: string) => {
    lines.push(`${message ?? ''} ${JSON.stringify(object)}`);
  };
  return { lines, debug: log, info: log, warn: log, error: log };
}

/** Options of a release written by {@link writeRelease}. */
export interface ReleaseSpec {
  key: string;
  version?: string;
  /** Arguments of the stdio fixture (e.g. `['--tools', '3']`); absent: no MCP server. */
  serverArgs?: string[];
  /** Replace the MCP command (e.g. a missing binary, to make a start fail). */
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
}

/** Writes a connector release folder and returns its path. */
export async function writeRelease(spec: ReleaseSpec): Promise<string> {
  const dir = join(await tempDir('tutti-release-'), spec.key);
  await mkdir(dir, { recursive: true });
  const manifest: Record<string, unknown> = {
    key: spec.key,
    name: `Connector ${spec.key}`,
    description: `Test connector ${spec.key}.`,
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

/** A runtime on a fresh temp home with a real store, registry and connector catalog. */
export async function createTestRuntime(overrides: Partial<ConnectorRuntimeOptions> = {}) {
  const home = await tempDir('tutti-home-');
  const store = await openStore(home);
  const registry = createConnectorMCPRegistry();
  const catalog = createConnectorCatalog();
  const logger = memoryLogger();
  const binDir = join(home, 'bin');
  const runtime = createConnectorRuntime({
    store,
    registry,
    catalog,
    binDir,
    logger,
    backoff: { initialMs: 20, maxMs: 200 },
    ...overrides,
  });
  return { home, store, registry, catalog, logger, binDir, runtime };
}

/** Resolves once `pid`'s process group has no live process left. */
export async function groupGone(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return true;
  for (let i = 0; i < 200; i++) {
    if (!isProcessGroupAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}
