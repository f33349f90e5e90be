/** Public shapes of the upstream MCP clients (stdio and Streamable HTTP). */
import type { UpstreamClient, UpstreamTool } from '../contracts/index.js';
import type { TuttiError } from '../errors/index.js';

/** pino-compatible logger subset; upstream code logs no secrets and no raw stderr at info. */
export interface UpstreamLogger {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
}

/** Caps of one paginated `tools/list`. */
export interface ListCaps {
  /** Most pages fetched before failing (default 32). */
  maxPages: number;
  /** Most tools accepted before failing (default 1024). */
  maxTools: number;
}

/** Why an upstream went away without being closed. */
export interface UpstreamExitInfo {
  /** Short description, e.g. `exit code 3`, `signal SIGKILL`, `fetch failed`. */
  readonly reason: string;
  /** Exit code of a stdio process, or null. */
  readonly code?: number | null;
  /** Signal that ended a stdio process, or null. */
  readonly signal?: string | null;
  /** Last bytes of a stdio process's stderr. */
  readonly stderrTail?: string;
  /**
   * The error that says why, when the daemon stopped the upstream for what it did (a
   * message over the line bound): it wins over how the process then ended.
   */
  readonly error?: TuttiError;
}

/** Options both upstream kinds take. */
export interface UpstreamCommonOptions {
  /** Time allowed for initialize plus the first full tools/list, in ms (default 30000). */
  startTimeoutMs?: number;
  /** Caps of every tools/list. */
  listCaps?: Partial<ListCaps>;
  /** Default timeout of one tools/call, in ms (default 600000). */
  callTimeoutMs?: number;
  /**
   * Runs the upstream's tools/calls one at a time, in arrival order (the manifest's
   * `mcp.serializeCalls`): a stdio server's elicitation can be routed only while a single
   * call is in flight. A waiting call that is cancelled leaves the queue; its timeout
   * counts from when it is sent.
   */
  serializeCalls?: boolean;
  logger?: UpstreamLogger;
  /** Called with the new tool list after an upstream `notifications/tools/list_changed`. */
  onToolsChanged?: (tools: UpstreamTool[]) => void;
  /** Called when a re-list after list_changed failed (the previous list stays valid). */
  onListError?: (error: Error) => void;
  /** Called once when the upstream dies or fails hard; never after `close()`. */
  onExit?: (info: UpstreamExitInfo) => void;
  /**
   * Given, as a stdio server's start begins, the reader of its stderr tail (the last
   * bytes it wrote; empty before it runs, kept after it ended), so the owner can show
   * why a start failed or hangs.
   */
  onStderr?: (read: () => string) => void;
  /**
   * Calls the start off: whatever was started is stopped and the start rejects with
   * TUTTI_ERR_UPSTREAM_START_ABANDONED. No effect once the start finished.
   */
  signal?: AbortSignal;
}

/** A started upstream: initialized, fully listed, ready for calls. */
export interface UpstreamConnection extends UpstreamClient {
  /** Name used in errors and logs: command basename or URL origin (never a secret). */
  readonly target: string;
  /** Negotiated MCP protocol version, e.g. `2025-06-18` or `2026-07-28`. */
  readonly protocolVersion: string | undefined;
  /** The latest complete tool list. */
  readonly tools: readonly UpstreamTool[];
  /**
   * The `instructions` of the server's `initialize` (or `server/discover`) result, exactly
   * as sent; undefined when it sent none.
   */
  readonly instructions: string | undefined;
  /** Pid (and process-group id) of a stdio upstream. */
  readonly pid: number | undefined;
  /** True once closed or exited. */
  readonly closed: boolean;
  /** Lists the tools again (paginated, capped) and returns them. */
  refreshTools(): Promise<UpstreamTool[]>;
  /** Last stderr bytes of a stdio upstream (empty for HTTP). */
  stderrTail(): string;
  /** Ends the connection (a stdio upstream's whole process group) and resolves when it is gone. */
  close(): Promise<void>;
}
