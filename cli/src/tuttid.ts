/**
 * `tuttid [--home DIR] [--port N] [--control-port N] [--json] [--no-demo] [--log-level L]`
 * `[--mcp-body-limit BYTES] [--control-body-limit BYTES] [--max-listen-streams N]`
 * `[--max-argument-depth N] [--max-release-mb N] [--agent-timeout MS]` (logs: `warn` by
 * default, `info` with `--json`; the limits are described in docs/limits.md):
 * runs the connector daemon until SIGTERM or SIGINT. On ready (its servers listen; the
 * connectors still come up) it writes `<home>/run/daemon.json` and prints a short banner
 * (with `--json`, one JSON line); once the connectors settled, their states (with
 * `--json`, a `settled` line).
 * Logs go to stderr as JSON lines, with every token redacted.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type Daemon,
  installExitHandlers,
  isTuttiError,
  resolveHome,
  startDaemon,
  TuttiError,
} from '@tutti/core';
import { pino } from 'pino';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository (or installed package set) root: `cli/dist/..` -> `cli` -> root. */
const repoRoot = resolve(here, '..', '..');
const demoRoot = resolve(here, '..', 'demo-connectors');

/** Parsed command line. */
export interface TuttidArgs {
  home: string;
  port: number;
  controlPort: number;
  json: boolean;
  demo: boolean;
  logLevel: string;
  /** The caps given on the command line; absent ones keep the daemon's defaults. */
  limits: {
    mcpBodyLimit?: number;
    controlBodyLimit?: number;
    maxListenStreamsPerToken?: number;
    maxArgumentDepth?: number;
    /** Longest an agent may take to start a session or answer one request, in ms. */
    agentTimeoutMs?: number;
  };
  /** Cap on the files of one installed release, in MiB (default: the store's, 256). */
  maxReleaseMb?: number;
}

function portOf(value: string | undefined, flag: string): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: `${flag} takes a port number`,
    });
  }
  return port;
}

function countOf(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(count) || count < 1) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: `${flag} takes a whole number from 1 up`,
    });
  }
  return count;
}

/** Parses `argv` (without node and the script). */
export function parseTuttidArgs(argv: readonly string[], env = process.env): TuttidArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        home: { type: 'string' },
        port: { type: 'string' },
        'control-port': { type: 'string' },
        json: { type: 'boolean', default: false },
        'no-demo': { type: 'boolean', default: false },
        'log-level': { type: 'string' },
        'mcp-body-limit': { type: 'string' },
        'control-body-limit': { type: 'string' },
        'max-listen-streams': { type: 'string' },
        'max-argument-depth': { type: 'string' },
        'agent-timeout': { type: 'string' },
        'max-release-mb': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', { problem: (error as Error).message });
  }
  return {
    home: resolveHome({ flag: values.home as string | undefined, env }),
    port: portOf(values.port as string | undefined, '--port'),
    controlPort: portOf(values['control-port'] as string | undefined, '--control-port'),
    json: values.json === true,
    demo: values['no-demo'] !== true,
    logLevel: String(values['log-level'] ?? (values.json === true ? 'info' : 'warn')),
    limits: {
      mcpBodyLimit: countOf(values['mcp-body-limit'] as string | undefined, '--mcp-body-limit'),
      controlBodyLimit: countOf(
        values['control-body-limit'] as string | undefined,
        '--control-body-limit',
      ),
      maxListenStreamsPerToken: countOf(
        values['max-listen-streams'] as string | undefined,
        '--max-listen-streams',
      ),
      maxArgumentDepth: countOf(
        values['max-argument-depth'] as string | undefined,
        '--max-argument-depth',
      ),
      agentTimeoutMs: countOf(values['agent-timeout'] as string | undefined, '--agent-timeout'),
    },
    ...(values['max-release-mb'] !== undefined && {
      maxReleaseMb: megabytesOf(values['max-release-mb'] as string),
    }),
  };
}

function megabytesOf(value: string): number {
  const megabytes = Number(value);
  if (!Number.isInteger(megabytes) || megabytes < 1) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: '--max-release-mb takes a whole number of MiB, at least 1',
    });
  }
  return megabytes;
}

/** Release folders of the bundled demo connectors. */
export function demoConnectors(): string[] {
  try {
    return readdirSync(demoRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(demoRoot, entry.name))
      .sort();
  } catch {
    return [];
  }
}

/** One line per connector: its state, what it serves, its CLI command. */
function connectorLines(daemon: Daemon): string[] {
  const statuses = daemon.runtime.status();
  if (statuses.length === 0) return ['  connectors  none installed'];
  return statuses.map((status) => {
    const parts: string[] = [status.state];
    if (status.mcp) parts.push(`${status.toolCount} MCP tools as ${status.key}_*`);
    if (status.cli) parts.push(`CLI tutti-connector-${status.key}`);
    return `  connector   ${status.key}: ${parts.join(', ')}`;
  });
}

function banner(daemon: Daemon): string {
  const lines = [
    'tuttid is ready',
    `  home        ${daemon.home}`,
    ...connectorLines(daemon),
    `  MCP server  ${daemon.mcpUrl} (agents get a per-session token)`,
    '  discover    tutti connector available',
    '  stop        Ctrl-C',
  ];
  return `${lines.join('\n')}\n`;
}

/** The connectors' states as the JSON lines carry them. */
function connectorStates(daemon: Daemon) {
  return daemon.runtime.status().map(({ key, state, toolCount }) => ({ key, state, toolCount }));
}

/** Runs the daemon; resolves once it is ready (it keeps running until a signal). */
export async function main(argv: readonly string[]): Promise<Daemon> {
  const args = parseTuttidArgs(argv);
  const logger = pino({ level: args.logLevel }, pino.destination(2));
  const daemon = await startDaemon({
    home: args.home,
    port: args.port,
    controlPort: args.controlPort,
    logger,
    demoConnectors: args.demo ? demoConnectors() : [],
    ...Object.fromEntries(Object.entries(args.limits).filter(([, value]) => value !== undefined)),
    ...(args.maxReleaseMb !== undefined && {
      releaseLimits: { maxBytes: args.maxReleaseMb * 1024 * 1024 },
    }),
    repoRoot,
    nodeModules: [join(repoRoot, 'node_modules')],
  });
  installExitHandlers(daemon.supervisor, {
    onSignal: () => daemon.close(),
    absorb: (error) => daemon.absorbEscapedError(error),
  });
  if (args.json) {
    const ready = {
      event: 'ready',
      pid: process.pid,
      home: daemon.home,
      controlUrl: daemon.info.controlUrl,
      mcpUrl: daemon.mcpUrl,
      connectors: connectorStates(daemon),
      plugins: daemon.plugins.map(({ name, status }) => ({ name, status })),
    };
    process.stdout.write(`${JSON.stringify(ready)}\n`);
  } else {
    process.stdout.write(banner(daemon));
  }
  // Connectors come up after ready; once each made its first attempt, say where they stand.
  void daemon.settled.then(() => {
    if (!daemon.runtime.status().length && !args.json) return;
    process.stdout.write(
      args.json
        ? `${JSON.stringify({ event: 'settled', connectors: connectorStates(daemon) })}\n`
        : `connectors settled:\n${connectorLines(daemon).join('\n')}\n`,
    );
  });
  return daemon;
}

/** Entry point of the bin: reports a startup failure in one line and exits 1. */
export async function run(argv: readonly string[]): Promise<void> {
  try {
    await main(argv);
  } catch (error) {
    const text = isTuttiError(error) ? `${error.code}: ${error.message}` : String(error);
    process.stderr.write(`tuttid: ${text}\n`);
    process.exit(1);
  }
}
