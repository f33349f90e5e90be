/** Public shapes of the connector runtime: statuses, the events it records, its logger. */
import type { CliStatus, InterfaceStatus } from '../catalog/index.js';

/**
 * Life-cycle state of one connector in the runtime: `needs-auth` waits for a credential;
 * `failed` did not start (or cannot read its credential), with `lastError` saying why.
 */
export type ConnectorState = 'needs-auth' | 'starting' | 'ready' | 'restarting' | 'failed';

/**
 * One installed connector as the runtime sees it (for `GET /v1/connectors`); holds no
 * secret.
 */
export interface ConnectorStatus {
  readonly key: string;
  readonly state: ConnectorState;
  /** Store revision the running upstream was started from. */
  readonly revision: number;
  /** Generation of the route serving now, when one serves. */
  readonly generation?: number;
  /** Pid (and process group) of a running stdio upstream. */
  readonly pid?: number;
  /** Tools the route serves. */
  readonly toolCount: number;
  /** Crashes and failed starts since the last stable run. */
  readonly failures: number;
  /** Upstream restarts since the daemon started. */
  readonly restarts: number;
  /** The release serving now: its version and the store revision it started from. */
  readonly running?: { readonly version: string; readonly revision: number };
  /**
   * The installed release while it has not run (a failed upgrade, the last good release
   * serving after a restart, a start still under way): its version, revision and why.
   */
  readonly pending?: {
    readonly version: string;
    readonly revision: number;
    readonly reason: string;
  };
  /** It failed too often in a row and is not retried until a change or `retry`. */
  readonly parked?: true;
  /** Why the last start or run failed, when it did (known secrets masked). */
  readonly lastError?: string;
  /** The fixed advice of its state when it is not ready (never upstream output). */
  readonly advice?: string;
  /**
   * It waits in `needs-auth` for a sign-in to its remote server (`POST
   * /v1/connectors/{key}/authorize`, the dashboard's Sign in button), not for a credential.
   */
  readonly signIn?: true;
  /**
   * The last lines its stdio MCP server wrote to stderr (of the running server, else of
   * the one that failed or crashed), its credential and anything that looks like a
   * secret masked; at most 20 lines of 500 characters. Only in the control API's
   * `GET /v1/connectors` and `/debug/registry`: never in `connector available`, agent
   * guidance or events.
   */
  readonly stderr?: readonly string[];
  /** Absolute skill root of the release, when it has skills. */
  readonly skillRoot?: string;
  /** MCP interface status, when the release has an MCP server. */
  readonly mcp?: InterfaceStatus;
  /** CLI interface status, when the release has a CLI. */
  readonly cli?: CliStatus;
}

/** Kinds of events the runtime records. */
export type RuntimeEventKind =
  | 'started'
  | 'upgraded'
  | 'tools-changed'
  | 'removed'
  | 'crashed'
  | 'restarted'
  | 'start-failed'
  /** A failed start left nothing serving: the last release that ran serves instead. */
  | 'fell-back'
  /** It failed too often in a row: no retry until told (detail says what to do). */
  | 'parked'
  /** Its remote server wants a sign-in (none yet, or the last one was lost): nothing runs until one. */
  | 'needs-sign-in'
  /** A sign-in to its remote server succeeded: it starts with the new grant. */
  | 'signed-in';

/** One recorded observation (kept in a bounded ring). */
export interface RuntimeEvent {
  readonly at: string;
  readonly key: string;
  readonly kind: RuntimeEventKind;
  readonly generation?: number;
  readonly detail?: string;
}

/** Logger subset the runtime uses (pino-compatible). */
export interface RuntimeLogger {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/** `logger` with the connector's key on every line (the upstream code knows only its target). */
export function keyedLogger(
  logger: RuntimeLogger,
  key: string,
): Pick<RuntimeLogger, 'debug' | 'info' | 'warn'> {
  return {
    debug: (object, text) => logger.debug({ connector: key, ...object }, text),
    info: (object, text) => logger.info({ connector: key, ...object }, text),
    warn: (object, text) => logger.warn({ connector: key, ...object }, text),
  };
}
