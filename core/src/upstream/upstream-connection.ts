/**
 * The part both upstream kinds share: connect with a bounded start time, the first full
 * tools/list, list_changed -> coalesced re-list, calls that never hang on a dead
 * upstream, and close. Where the transport lets it see incoming lines first (stdio),
 * `tools/call` skips the SDK client (see raw-tool-calls.ts).
 */
import {
  Client,
  type ClientOptions,
  SdkError,
  SdkErrorCode,
  type Transport,
} from '@modelcontextprotocol/client';
import type { UpstreamCallResult, UpstreamTool } from '../contracts/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { abortSignalOf } from './abort-signal.js';
import { unauthorizedStatus } from './http-status.js';
import { createCoalescingRunner } from './coalescing-runner.js';
import { DEFAULT_LIST_CAPS, listAllTools } from './list-tools.js';
import { createRawToolCalls, type RawToolCalls } from './raw-tool-calls.js';
import type {
  ListCaps,
  UpstreamCommonOptions,
  UpstreamConnection,
  UpstreamExitInfo,
} from './types.js';

const CLIENT_INFO = { name: 'tutti-connector', version: '0.1.0' };
const DEFAULT_START_TIMEOUT_MS = 30_000;
const DEFAULT_CALL_TIMEOUT_MS = 600_000;

/** What an upstream kind supplies to {@link connectUpstream}. */
export interface UpstreamSetup {
  target: string;
  transport: Transport;
  /** Era selection and protocol versions of the SDK client. */
  clientOptions: Pick<ClientOptions, 'versionNegotiation' | 'supportedProtocolVersions'>;
  /** Why the upstream went away, once known (stdio: exit code, signal, stderr tail). */
  exitInfo(): UpstreamExitInfo | undefined;
  pid?(): number | undefined;
  stderrTail?(): string;
  /**
   * Why a failed request means the upstream is gone (HTTP: unreachable, credential refused,
   * session unknown), or undefined when it does not.
   */
  hardFailure?(error: unknown): string | undefined;
  /**
   * Installs a handler that sees every incoming message before the SDK client and consumes
   * those it returns true for. Given by transports of the 2025 era only (stdio): then
   * `tools/call` takes the raw path.
   */
  intercept?(handler: (message: unknown) => boolean): void;
}

/** Connects, lists, and returns the live connection; on failure nothing is left running. */
export async function connectUpstream(
  setup: UpstreamSetup,
  options: UpstreamCommonOptions,
): Promise<UpstreamConnection> {
  const { target, transport } = setup;
  const caps: ListCaps = { ...DEFAULT_LIST_CAPS, ...options.listCaps };
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const logger = options.logger;
  let tools: UpstreamTool[] = [];
  let closing = false;
  let ended: UpstreamExitInfo | undefined;
  let ready = false;
  let raw: RawToolCalls | undefined;

  const relist = createCoalescingRunner(async () => {
    if (closing || ended) return;
    try {
      tools = await listAllTools(client, target, caps, { timeout: startTimeoutMs });
    } catch (error) {
      if (closing || ended) return;
      logger?.warn({ target, err: (error as Error).message }, 'upstream re-list failed');
      options.onListError?.(error as Error);
      return;
    }
    if (!closing && !ended) options.onToolsChanged?.(tools);
  });

  const client = new Client(CLIENT_INFO, {
    ...setup.clientOptions,
    listChanged: {
      tools: {
        autoRefresh: false,
        debounceMs: 0,
        onChanged: () => {
          if (ready) relist.trigger();
        },
      },
    },
  });
  client.onerror = (error) => logger?.debug({ target, err: error.message }, 'upstream error');
  client.onclose = () => {
    raw?.closeAll(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
    if (closing || ended) return;
    ended = setup.exitInfo() ?? { reason: 'connection closed' };
    logger?.warn({ target, reason: ended.reason }, 'upstream ended');
    if (ready) options.onExit?.(ended);
  };

  /** Marks the upstream as gone (once), tells the owner, and drops the client. */
  const fail = (info: UpstreamExitInfo) => {
    if (closing || ended) return;
    ended = info;
    logger?.warn({ target, reason: info.reason }, 'upstream failed');
    options.onExit?.(info);
    void client.close().catch(() => {});
  };

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), startTimeoutMs);
  const timedOut = new Promise<never>((_, reject) => {
    deadline.signal.addEventListener('abort', () =>
      reject(
        new TuttiError('TUTTI_ERR_UPSTREAM_START_TIMEOUT', { target, timeoutMs: startTimeoutMs }),
      ),
    );
  });
  try {
    await Promise.race([
      (async () => {
        await client.connect(transport, { signal: deadline.signal, timeout: startTimeoutMs });
        tools = await listAllTools(client, target, caps, { signal: deadline.signal });
      })(),
      timedOut,
    ]);
  } catch (error) {
    closing = true;
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw startError(error, target, deadline.signal.aborted, startTimeoutMs, setup.exitInfo());
  } finally {
    clearTimeout(timer);
  }
  ready = true;
  timedOut.catch(() => {});
  if (setup.intercept) {
    raw = createRawToolCalls({
      send: (message) => transport.send(message),
      timeoutMs: callTimeoutMs,
      onError: (error) => client.onerror?.(error),
    });
    setup.intercept(raw.intercept);
  }
  // A 2026-07-28 list_changed stream that ends other than by our own close means the
  // server went away (a server shutting down ends it gracefully): connect again.
  void client.autoOpenedSubscription?.closed.then((how) => {
    if (how === 'remote') fail({ reason: 'subscription stream dropped' });
    else if (how !== 'local') fail({ reason: 'the server closed its subscription stream' });
  });
  logger?.debug(
    { target, protocolVersion: client.getNegotiatedProtocolVersion(), tools: tools.length },
    'upstream ready',
  );

  const gone = (): TuttiError =>
    ended
      ? new TuttiError('TUTTI_ERR_UPSTREAM_EXITED', { target, reason: ended.reason })
      : new TuttiError('TUTTI_ERR_UPSTREAM_CLOSED', { target });

  return {
    target,
    get protocolVersion() {
      return client.getNegotiatedProtocolVersion();
    },
    get tools() {
      return tools;
    },
    get pid() {
      return setup.pid?.();
    },
    get closed() {
      return closing || ended !== undefined;
    },
    stderrTail: () => setup.stderrTail?.() ?? '',
    async refreshTools() {
      if (closing || ended) throw gone();
      tools = await listAllTools(client, target, caps, { timeout: startTimeoutMs });
      return tools;
    },
    async callTool(name, args, callOptions) {
      const signal = callOptions?.signal;
      if (closing || ended) throw gone();
      if (signal?.aborted)
        throw new TuttiError('TUTTI_ERR_UPSTREAM_CANCELLED', { target, tool: name });
      try {
        if (raw) return await raw.call(name, args, signal);
        const params = args === undefined ? { name } : { name, arguments: args };
        const sdkSignal = abortSignalOf(signal);
        try {
          const result = await client.callTool(params, {
            signal: sdkSignal.signal,
            timeout: callTimeoutMs,
          });
          return result as unknown as UpstreamCallResult;
        } finally {
          sdkSignal.release();
        }
      } catch (error) {
        if (signal?.aborted) {
          throw new TuttiError(
            'TUTTI_ERR_UPSTREAM_CANCELLED',
            { target, tool: name },
            { cause: error },
          );
        }
        if (isConnectionClosed(error) || closing || ended) throw gone();
        const hard = setup.hardFailure?.(error);
        if (hard !== undefined) {
          fail({ reason: hard });
          throw gone();
        }
        throw error;
      }
    },
    async close() {
      if (closing) return;
      closing = true;
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
    },
  };
}

function isConnectionClosed(error: unknown): boolean {
  return (
    error instanceof SdkError &&
    (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)
  );
}

/** The error `connectUpstream` throws for a failed start, without secrets. */
function startError(
  error: unknown,
  target: string,
  timedOut: boolean,
  timeoutMs: number,
  exit: UpstreamExitInfo | undefined,
): TuttiError {
  if (isTuttiError(error) && error.code !== 'TUTTI_ERR_UPSTREAM_START_TIMEOUT') return error;
  const refused = unauthorizedStatus(error);
  if (refused !== undefined) {
    return new TuttiError(
      'TUTTI_ERR_UPSTREAM_UNAUTHORIZED',
      { target, status: refused },
      { cause: error },
    );
  }
  if (timedOut || isTuttiError(error, 'TUTTI_ERR_UPSTREAM_START_TIMEOUT')) {
    return new TuttiError(
      'TUTTI_ERR_UPSTREAM_START_TIMEOUT',
      { target, timeoutMs },
      { cause: error },
    );
  }
  const reason = exit ? exit.reason : error instanceof Error ? error.message : String(error);
  return new TuttiError('TUTTI_ERR_UPSTREAM_START_FAILED', { target, reason }, { cause: error });
}
