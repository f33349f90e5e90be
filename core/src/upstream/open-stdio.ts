/**
 * `openStdioUpstream`: a managed stdio MCP server in its own process group, with exactly
 * the environment given (plus PATH and HOME when the caller gives none), a bounded start
 * time, and crash detection.
 */
import { basename } from 'node:path';
import { defaultProcessSupervisor, type ProcessSupervisor } from '../process/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { ProcessGroupTransport } from './process-group-transport.js';
import type { UpstreamCommonOptions, UpstreamConnection, UpstreamExitInfo } from './types.js';
import { connectUpstream } from './upstream-connection.js';

/**
 * MCP versions a stdio upstream may answer; the first is offered, so a server that knows
 * 2025-11-25 (URL-mode elicitation) talks it and an older one answers its own.
 */
const STDIO_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** Options of {@link openStdioUpstream}. */
export interface StdioUpstreamOptions extends UpstreamCommonOptions {
  command: string;
  args?: readonly string[];
  /**
   * The server's whole environment (credentials belong here). Only PATH and HOME are
   * taken from the daemon, and only when absent here; nothing else of the daemon leaks.
   * The supervisor adds `TUTTI_PROCESS_SCOPE`, the marker of the server's process tree.
   */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** Supervisor of the process group (default: the daemon-wide one with its reaper). */
  supervisor?: ProcessSupervisor;
  /** Bytes of stderr kept for diagnostics (default 16 KiB). */
  stderrTailBytes?: number;
  /** Files the process gets open for reading as its descriptors 3, 4, ... */
  files?: readonly string[];
  /** Name of the server in errors and logs (default: the command's basename). */
  target?: string;
  /** Called once the server's process ended (or could not be spawned): to remove its temp folder. */
  onGone?: () => void;
}

/** The environment a stdio upstream gets: `env` plus PATH and HOME when missing. */
export function upstreamEnvironment(
  env: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  const path = process.env.PATH;
  const home = process.env.HOME;
  if (path !== undefined) out.PATH = path;
  if (home !== undefined) out.HOME = home;
  return { ...out, ...env };
}

function describeExit(code: number | null, signal: string | null): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

/**
 * Spawns the server, runs initialize and the full tools/list within `startTimeoutMs`
 * (else stops the whole group and throws TUTTI_ERR_UPSTREAM_START_TIMEOUT).
 * @example const up = await openStdioUpstream({ command: 'node', args: ['server.mjs'] });
 */
export async function openStdioUpstream(
  options: StdioUpstreamOptions,
): Promise<UpstreamConnection> {
  const supervisor = options.supervisor ?? defaultProcessSupervisor();
  const target = options.target ?? basename(options.command);
  const transport = new ProcessGroupTransport(
    supervisor,
    {
      command: options.command,
      args: options.args,
      env: upstreamEnvironment(options.env),
      cwd: options.cwd,
      stderrTailBytes: options.stderrTailBytes,
      ...(options.files && { files: options.files }),
    },
    options.onGone,
  );
  const exitInfo = (): UpstreamExitInfo | undefined => {
    const info = transport.exitInfo;
    const failure = transport.failure;
    if (failure) {
      // Recorded before the process was stopped: the cause, not the SIGTERM that followed.
      return {
        reason: `stopped: a line on its stdout passed the ${failure.limit}-byte bound of one message`,
        code: info?.code ?? null,
        signal: info?.signal ?? null,
        stderrTail: info?.stderrTail ?? transport.process?.stderrTail() ?? '',
        error: new TuttiError('TUTTI_ERR_UPSTREAM_MESSAGE_TOO_LARGE', {
          target,
          limit: failure.limit,
          mib: Math.round((failure.limit / (1024 * 1024)) * 10) / 10,
        }),
      };
    }
    if (!info) return undefined;
    return {
      reason: describeExit(info.code, info.signal),
      code: info.code,
      signal: info.signal,
      stderrTail: info.stderrTail,
    };
  };
  const stderrTail = () => transport.process?.stderrTail() ?? '';
  options.onStderr?.(stderrTail);
  try {
    return await connectUpstream(
      {
        target,
        transport,
        network: 'pipe',
        clientOptions: {
          versionNegotiation: { mode: 'legacy' },
          supportedProtocolVersions: STDIO_PROTOCOL_VERSIONS,
        },
        exitInfo,
        pid: () => transport.process?.pid,
        stderrTail,
        intercept: (handler) => {
          transport.intercept = handler;
        },
      },
      options,
    );
  } catch (error) {
    const spawnError = error instanceof TuttiError ? error.cause : error;
    if (!transport.process && !isTuttiError(spawnError)) {
      const reason = (spawnError as NodeJS.ErrnoException)?.code ?? String(spawnError);
      throw new TuttiError(
        'TUTTI_ERR_UPSTREAM_SPAWN_FAILED',
        { command: target, reason },
        { cause: error },
      );
    }
    throw error;
  }
}
