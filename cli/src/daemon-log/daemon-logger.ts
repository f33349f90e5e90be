/**
 * The logger of `tuttid`: one pino logger whose JSON lines go to the log file
 * (`<home>/logs/tuttid.log`, rotated: log-file.ts) and to the terminal: as JSON lines on
 * stderr with `--json`, else as short human lines with repeats counted (terminal-log.ts).
 * Node's own warnings (`process.emitWarning`, which the Claude Agent SDK uses, e.g.
 * `CLAUDE_SDK_CAN_USE_TOOL_SHADOWED`) are logged through it instead of being printed raw.
 * Every message and field text passes the secret patterns of the redactor (a bearer token,
 * a `NAME_TOKEN=value`) before it is written anywhere.
 */
import { join } from 'node:path';
import { createSecretRedactor } from '@tutti/core/internal';
import { type DestinationStream, type Level, type Logger, pino } from 'pino';
import { openLogFile } from './log-file.js';
import { createTerminalLog } from './terminal-log.js';

/** Where the log file of `home` is. */
export function logFilePath(home: string): string {
  return join(home, 'logs', 'tuttid.log');
}

/** Options of {@link createDaemonLog}. */
export interface DaemonLogOptions {
  readonly home: string;
  /**
   * `--log-level` (also `silent`): the level of the file and the terminal. Without it the
   * file gets `info`, the terminal `warn` (`info` with `--json`).
   */
  readonly level?: string;
  /** `--json`: the terminal gets pino's JSON lines, not human ones. */
  readonly json: boolean;
  /** Largest log file before it is rotated, in bytes. */
  readonly fileBytes?: number;
  /** Rotated log files kept. */
  readonly files?: number;
  /** Where the terminal's lines go (default: stderr). */
  readonly stderr?: (text: string) => void;
}

/** The daemon's logger and what it writes to. */
export interface DaemonLog {
  readonly logger: Logger;
  /** The log file. */
  readonly path: string;
  /** Human terminal only: the lines repeated since their count was last shown. */
  repeats(): string[];
  /** Stops routing Node's warnings here and closes the file. */
  close(): void;
}

const LEVELS = pino.levels.values;
const patterns = createSecretRedactor();

/** Strings of a log call's arguments with the secret patterns masked (one level deep). */
function redactArgs(args: unknown[]): unknown[] {
  return args.map((arg) => {
    if (typeof arg === 'string') return patterns.redact(arg);
    if (!arg || typeof arg !== 'object' || Array.isArray(arg)) return arg;
    if (arg instanceof Error) return redactError(arg);
    return Object.fromEntries(
      Object.entries(arg).map(([name, value]) => [
        name,
        typeof value === 'string'
          ? patterns.redact(value)
          : value instanceof Error
            ? redactError(value)
            : value,
      ]),
    );
  });
}

function redactError(error: Error) {
  return {
    type: error.name,
    message: patterns.redact(error.message),
    ...(error.stack && { stack: patterns.redact(error.stack) }),
  };
}

/** The numeric level of `name`, undefined for `silent`. */
function levelOf(name: string): number | undefined {
  if (name === 'silent') return undefined;
  const value = LEVELS[name];
  if (value === undefined) {
    throw new Error(`unknown log level "${name}" (trace, debug, info, warn, error, fatal, silent)`);
  }
  return value;
}

/**
 * Makes the logger and routes Node's process warnings through it.
 * @example const log = createDaemonLog({ home, json: false }); log.logger.warn('hello');
 */
export function createDaemonLog(options: DaemonLogOptions): DaemonLog {
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const path = logFilePath(options.home);
  const fileLevel = levelOf(options.level ?? 'info');
  const terminalLevel = levelOf(options.level ?? (options.json ? 'info' : 'warn'));
  const file = openLogFile({
    path,
    ...(options.fileBytes !== undefined && { maxBytes: options.fileBytes }),
    ...(options.files !== undefined && { maxFiles: options.files }),
    onError: (error) =>
      stderr(
        `tuttid: the log file ${path} cannot be written (${error.code ?? error.message}): logging on without it\n`,
      ),
  });
  const terminal = options.json ? undefined : createTerminalLog(stderr);
  const streams: { level: number; stream: DestinationStream }[] = [];
  if (fileLevel !== undefined) {
    streams.push({ level: fileLevel, stream: { write: (line: string) => file.write(line) } });
  }
  if (terminalLevel !== undefined) {
    streams.push({
      level: terminalLevel,
      stream: terminal
        ? { write: (line: string) => terminal.write(line) }
        : { write: (line: string) => stderr(line) },
    });
  }
  const lowest = Math.min(...streams.map((entry) => entry.level));
  const level = (pino.levels.labels[lowest] as Level | undefined) ?? 'silent';
  const logger = pino(
    {
      level,
      hooks: {
        logMethod(args, method) {
          return method.apply(this, redactArgs(args) as Parameters<typeof method>);
        },
      },
    },
    pino.multistream(streams),
  );

  // Node prints a warning itself unless its own listener is gone: log it instead.
  const nodePrinters = process.listeners('warning');
  for (const listener of nodePrinters) process.off('warning', listener);
  const onWarning = (warning: Error & { code?: string }) =>
    logger.warn(
      { component: 'node', warning: warning.name, ...(warning.code && { code: warning.code }) },
      warning.message,
    );
  process.on('warning', onWarning);

  return {
    logger,
    path,
    repeats: () => terminal?.repeats() ?? [],
    close() {
      process.off('warning', onWarning);
      for (const listener of nodePrinters) process.on('warning', listener);
      file.close();
    },
  };
}
