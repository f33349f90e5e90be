/**
 * `tuttid [--home DIR] [--port N] [--control-port N] [--json] [--no-demo] [--log-level L]`
 * `[--log-file-size BYTES] [--log-file-count N]`
 * `[--mcp-body-limit BYTES] [--control-body-limit BYTES] [--max-listen-streams N]`
 * `[--max-argument-depth N] [--max-release-mb N] [--agent-timeout MS]`
 * `[--permission-timeout MS] [--max-sessions N] [--help]` (the limits are described in
 * docs/limits.md): runs the connector daemon until SIGTERM or SIGINT. On ready (its
 * servers listen; the connectors still come up) it writes `<home>/run/daemon.json` and
 * prints a short banner (with `--json`, one JSON line); once the connectors settled, their
 * states (with `--json`, a `settled` line); on a signal, `stopping` and `stopped` lines
 * (with `--json`, log lines). Logs go to `<home>/logs/tuttid.log` (daemon-log/) and to
 * stderr: short human lines with repeats counted, or JSON lines with `--json`.
 * `tuttid status` and `tuttid dashboard` are operator commands (operator/), not the daemon.
 */
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type ConnectorStatus,
  type Daemon,
  isTuttiError,
  startDaemon,
  TuttiError,
} from '@tutti/core';
import { resolveHome } from '@tutti/core/client';
import { installExitHandlers, shQuote } from '@tutti/core/internal';
import { createDaemonLog, type DaemonLog, logFilePath } from './daemon-log/daemon-logger.js';
import { DEFAULT_LOG_FILE_BYTES, DEFAULT_LOG_FILES } from './daemon-log/log-file.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository (or installed package set) root: `cli/dist/..` -> `cli` -> root. */
const repoRoot = resolve(here, '..', '..');
const demoRoot = resolve(here, '..', 'demo-connectors');

/** What `tuttid --help` prints. */
export const TUTTID_USAGE = `Usage: tuttid [options]
       tuttid status [--home DIR] [--json]
       tuttid dashboard [--home DIR] [--json]

Runs the tutti connector daemon on one tutti home until SIGTERM or SIGINT (Ctrl-C). It
serves every installed connector's tools from one loopback MCP server, "connector", and
its control API on 127.0.0.1. One daemon runs per home.

Commands (they ask the daemon running for the home; \`tuttid <command> --help\`):
  status                      each connector's status, why it does not work and its
                              server's last stderr lines; each agent session's status
  dashboard                   a new one-time login link of the dashboard

Options:
  --home DIR                  tutti home (default: $TUTTI_HOME, else ~/.tutti)
  --no-demo                   on an empty home, install no demo connectors (by default
                              it installs "notes", an MCP server, and "hello", a CLI)
  --json                      print JSON lines (ready, then settled) instead of the
                              banner; logs at info
  --log-level LEVEL           trace, debug, info, warn, error, fatal or silent, for
                              the log file and stderr (default: info in the file;
                              warn on stderr, info with --json)
  --log-file-size BYTES       rotate <home>/logs/tuttid.log at this size (default 10 MiB)
  --log-file-count N          rotated log files kept (default 5)
  --port N                    port of the "connector" MCP server (default: a free one)
  --control-port N            port of the control API (default: a free one)
  --mcp-body-limit BYTES      largest request to the MCP server (default 4 MiB)
  --control-body-limit BYTES  largest request to the control API (default 256 KiB)
  --max-listen-streams N      subscriptions/listen streams per session (default 16)
  --max-argument-depth N      deepest nesting of tools/call arguments (default 64)
  --agent-timeout MS          longest an agent may take to start or answer (default 60000)
  --permission-timeout MS     how long a turn's permission request waits for an answer
                              before it is denied (default 300000)
  --max-sessions N            most live agent sessions at once (default 64)
  --park-after N              failed starts in a row after which a connector
                              stops retrying until told (default 5)
  --max-release-mb N          largest installed release, in MiB (default 256)
  -h, --help                  print this help and exit

Once ready it writes <home>/run/daemon.json (control URL and token, mode 0600).
It logs JSON lines to <home>/logs/tuttid.log (mode 0600) and short lines to stderr.
Discover the connectors with \`tutti connector available\`; install one through the
control API: POST /v1/connectors/install {"path": "<release folder>"}
(docs/control-api.md). Day to day: docs/running-the-daemon.md. Limits: docs/limits.md.
`;

/** The options `tuttid` takes, as `node:util` parseArgs reads them. */
export const TUTTID_OPTIONS = {
  home: { type: 'string' },
  port: { type: 'string' },
  'control-port': { type: 'string' },
  json: { type: 'boolean', default: false },
  'no-demo': { type: 'boolean', default: false },
  'log-level': { type: 'string' },
  'log-file-size': { type: 'string' },
  'log-file-count': { type: 'string' },
  'mcp-body-limit': { type: 'string' },
  'control-body-limit': { type: 'string' },
  'max-listen-streams': { type: 'string' },
  'max-argument-depth': { type: 'string' },
  'agent-timeout': { type: 'string' },
  'permission-timeout': { type: 'string' },
  'max-sessions': { type: 'string' },
  'park-after': { type: 'string' },
  'max-release-mb': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Parsed command line. */
export interface TuttidArgs {
  /** `--help`: print {@link TUTTID_USAGE} and exit. */
  help: boolean;
  home: string;
  port: number;
  controlPort: number;
  json: boolean;
  demo: boolean;
  /** `--log-level`; absent: info in the log file, warn on stderr (info with `--json`). */
  logLevel?: string;
  /** The log file's rotation: its largest size in bytes and the rotated files kept. */
  logFile: { maxBytes: number; maxFiles: number };
  /** The caps given on the command line; absent ones keep the daemon's defaults. */
  limits: {
    mcpBodyLimit?: number;
    controlBodyLimit?: number;
    maxListenStreamsPerToken?: number;
    maxArgumentDepth?: number;
    /** Longest an agent may take to start a session or answer one request, in ms. */
    agentTimeoutMs?: number;
    /** How long a turn's permission request waits for an answer, in ms. */
    permissionTimeoutMs?: number;
    /** Most agent sessions held at once. */
    maxSessions?: number;
    /** Failures in a row after which a connector parks until told. */
    parkAfter?: number;
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
      options: TUTTID_OPTIONS,
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', { problem: (error as Error).message });
  }
  return {
    help: values.help === true,
    home: resolveHome({ flag: values.home as string | undefined, env }),
    port: portOf(values.port as string | undefined, '--port'),
    controlPort: portOf(values['control-port'] as string | undefined, '--control-port'),
    json: values.json === true,
    demo: values['no-demo'] !== true,
    ...(values['log-level'] !== undefined && {
      logLevel: logLevelOf(values['log-level'] as string),
    }),
    logFile: {
      maxBytes:
        countOf(values['log-file-size'] as string | undefined, '--log-file-size') ??
        DEFAULT_LOG_FILE_BYTES,
      maxFiles: wholeOf(values['log-file-count'] as string | undefined, '--log-file-count'),
    },
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
      permissionTimeoutMs: countOf(
        values['permission-timeout'] as string | undefined,
        '--permission-timeout',
      ),
      maxSessions: countOf(values['max-sessions'] as string | undefined, '--max-sessions'),
      parkAfter: countOf(values['park-after'] as string | undefined, '--park-after'),
    },
    ...(values['max-release-mb'] !== undefined && {
      maxReleaseMb: megabytesOf(values['max-release-mb'] as string),
    }),
  };
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function logLevelOf(value: string): string {
  if (!LOG_LEVELS.includes(value)) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: `--log-level takes one of ${LOG_LEVELS.join(', ')}`,
    });
  }
  return value;
}

function wholeOf(value: string | undefined, flag: string): number {
  if (value === undefined) return DEFAULT_LOG_FILES;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: `${flag} takes a whole number from 0 up`,
    });
  }
  return Number(value);
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

/** The `tutti` and `tuttid` bins of this package. */
const bins = {
  tutti: resolve(here, '..', 'bin', 'tutti.js'),
  tuttid: resolve(here, '..', 'bin', 'tuttid.js'),
};

/** How to run `name` from a shell: by name when it is on PATH, else through node. */
function commandOf(name: keyof typeof bins, env: NodeJS.ProcessEnv): string {
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .some((dir) => {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  return onPath ? name : `node ${shellWord(bins[name])}`;
}

/** How to run `tutti` from a shell: by name when it is on PATH, else through node. */
export function tuttiCommand(env: NodeJS.ProcessEnv = process.env): string {
  return commandOf('tutti', env);
}

/** One line per connector: its state, what it serves, its CLI command. */
function connectorLines(
  daemon: Daemon,
  statuses: readonly ConnectorStatus[] = daemon.runtime.status(),
): string[] {
  if (statuses.length === 0) {
    return [
      '  connectors  none installed: install one through the control API,',
      '              POST /v1/connectors/install {"path": "<release folder>"} (docs/control-api.md)',
    ];
  }
  return statuses.map((status) => {
    const parts: string[] = [status.state];
    if (status.mcp) parts.push(`${status.toolCount} MCP tools as ${status.key}_*`);
    if (status.cli) parts.push(`CLI tutti-connector-${status.key}`);
    return `  connector   ${status.key}: ${parts.join(', ')}`;
  });
}

/** `value` as a shell word: as it is when plain, else single-quoted. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(value) ? value : shQuote(value);
}

function banner(daemon: Daemon): string {
  const shims = join(daemon.home, 'bin');
  const home = shellWord(daemon.home);
  const lines = [
    'tuttid is ready',
    `  home        ${daemon.home}`,
    ...connectorLines(daemon),
    `  MCP server  ${daemon.mcpUrl} (agents get a per-session token)`,
    `  CLI shims   ${shims} (first on PATH in agent sessions)`,
    `              in a shell: PATH=${shellWord(shims)}:"$PATH" tutti-connector-<key> ...`,
    `  dashboard   ${daemon.dashboard.loginLink().url} (one-time login link, 5 minutes)`,
    `  discover    ${tuttiCommand()} connector available --home ${home}`,
    `  status      ${commandOf('tuttid', process.env)} status --home ${home} (why a connector does not work)`,
    `  log file    ${logFilePath(daemon.home)}`,
    '  stop        Ctrl-C',
  ];
  return `${lines.join('\n')}\n`;
}

/** One connector as the `--json` ready and settled lines carry it. */
export interface ConnectorLineState {
  readonly key: string;
  readonly state: ConnectorStatus['state'];
  readonly toolCount: number;
}

/** The `--json` ready line: the servers listen (connectors may still be starting). */
export interface ReadyLine {
  readonly event: 'ready';
  readonly pid: number;
  readonly home: string;
  readonly controlUrl: string;
  readonly mcpUrl: string;
  /** The dashboard's one-time login link. */
  readonly dashboardLogin: string;
  readonly connectors: readonly ConnectorLineState[];
  /** Each plugin loaded at start (a plugin without a name has none here). */
  readonly plugins: readonly {
    readonly name?: string | undefined;
    readonly status: Daemon['plugins'][number]['status'];
  }[];
}

/**
 * The `--json` settled line: every connector installed at start made its first attempt
 * (printed after the ready line).
 */
export interface SettledLine {
  readonly event: 'settled';
  readonly connectors: readonly ConnectorLineState[];
}

/** The connectors' states as the JSON lines carry them. */
function connectorStates(statuses: readonly ConnectorStatus[]): ConnectorLineState[] {
  return statuses.map(({ key, state, toolCount }) => ({ key, state, toolCount }));
}

/**
 * Says when a signal stops the daemon and when it is gone: `stopping` and `stopped` lines
 * on stdout (with `--json`, log lines only: stdout keeps its two JSON lines), and the
 * final count of each warning repeated since its count was last shown.
 */
function announceStops(daemon: Daemon, log: DaemonLog, json: boolean): void {
  let signalled: NodeJS.Signals | undefined;
  let closed = false;
  const say = (text: string) => {
    if (!json) process.stdout.write(`${text}\n`);
  };
  installExitHandlers(daemon.supervisor, {
    onSignal: async (signal) => {
      signalled = signal;
      log.logger.info({ signal }, 'stopping');
      say(`stopping (${signal}): closing the agent sessions, the connectors and the servers`);
      await daemon.close();
      closed = true;
    },
    absorb: (error) => daemon.absorbEscapedError(error),
  });
  process.once('exit', (code) => {
    if (signalled === undefined) return;
    for (const line of log.repeats()) process.stderr.write(`${line}\n`);
    const how = closed ? '' : ' (the orderly stop took too long: what was left was killed)';
    log.logger.info({ signal: signalled, code, orderly: closed }, 'stopped');
    say(`stopped${how}`);
    log.close();
  });
}

/**
 * Runs the daemon; resolves once it is ready (it keeps running until a signal). With
 * `--help` it prints the usage and resolves undefined.
 */
export async function main(argv: readonly string[]): Promise<Daemon | undefined> {
  const args = parseTuttidArgs(argv);
  if (args.help) {
    process.stdout.write(TUTTID_USAGE);
    return undefined;
  }
  const log = createDaemonLog({
    home: args.home,
    json: args.json,
    ...(args.logLevel !== undefined && { level: args.logLevel }),
    fileBytes: args.logFile.maxBytes,
    files: args.logFile.maxFiles,
  });
  const { logger } = log;
  let daemon: Daemon;
  try {
    daemon = await startDaemon({
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
  } catch (error) {
    log.close();
    throw error;
  }
  announceStops(daemon, log, args.json);
  if (args.json) {
    const ready: ReadyLine = {
      event: 'ready',
      pid: process.pid,
      home: daemon.home,
      controlUrl: daemon.info.controlUrl,
      mcpUrl: daemon.mcpUrl,
      dashboardLogin: daemon.dashboard.loginLink().url,
      connectors: connectorStates(daemon.runtime.status()),
      plugins: daemon.plugins.map(({ name, status }) => ({ name, status })),
    };
    process.stdout.write(`${JSON.stringify(ready)}\n`);
  } else {
    process.stdout.write(banner(daemon));
  }
  // Connectors come up after ready; once each made its first attempt, say where it got.
  void daemon.settled.then((statuses) => {
    if (!statuses.length && !args.json) return;
    process.stdout.write(
      args.json
        ? `${JSON.stringify({ event: 'settled', connectors: connectorStates(statuses) } satisfies SettledLine)}\n`
        : `connectors settled:\n${connectorLines(daemon, statuses).join('\n')}\n`,
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
