/**
 * `tuttid [options]` (its command line: tuttid-args.ts): runs the connector daemon until
 * SIGTERM or SIGINT. On ready (its servers listen; the connectors still come up) it writes
 * `<home>/run/daemon.json` and prints a short banner (with `--json`, one JSON line); once
 * the connectors settled, their states (with `--json`, a `settled` line); on a signal,
 * `stopping` and `stopped` lines (with `--json`, log lines). Logs go to
 * `<home>/logs/tuttid.log` (daemon-log/) and to stderr: short human lines with repeats
 * counted, or JSON lines with `--json`.
 * `tuttid status` and `tuttid dashboard` are operator commands (operator/), not the daemon.
 */
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ConnectorStatus, type Daemon, isTuttiError, startDaemon } from '@tutti/core';
import { installExitHandlers, shQuote } from '@tutti/core/internal';
import { createDaemonLog, type DaemonLog, logFilePath } from './daemon-log/daemon-logger.js';
import { parseTuttidArgs, TUTTID_USAGE } from './tuttid-args.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository (or installed package set) root: `cli/dist/..` -> `cli` -> root. */
const repoRoot = resolve(here, '..', '..');
const demoRoot = resolve(here, '..', 'demo-connectors');

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
      credentialStore: args.credentialStore,
      sandbox: args.sandbox,
      tracing: args.tracing,
      audit: args.audit,
      ...(args.oauthClientMetadataUrl && { oauthClientMetadataUrl: args.oauthClientMetadataUrl }),
      ...(args.agentRegistry && { agentRegistry: args.agentRegistry }),
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
