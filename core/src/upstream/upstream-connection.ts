/**
 * The part both upstream kinds share: connect with a bounded start time, the first full
 * tools/list, list_changed -> coalesced re-list, calls that never hang on a dead
 * upstream, and close. Where the transport lets it see incoming lines first (stdio),
 * `tools/call` skips the SDK client (see raw-tool-calls.ts). Every call failure leaves as a
 * TuttiError: the SDK's own errors are converted here, once.
 *
 * The client declares elicitation (form and URL) and nothing else a server could ask of it
 * (no sampling, no roots): an upstream's question goes to the person through the call's
 * `elicit` (raw-tool-calls.ts on stdio, sdk-call-asks.ts on HTTP), its progress to the
 * call's `onProgress`. With `serializeCalls`, calls run one at a time (call-queue.ts).
 */
import {
  Client,
  type ClientOptions,
  type ElicitResult,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type Transport,
} from '@modelcontextprotocol/client';
import type {
  CallSignal,
  UpstreamCallOptions,
  UpstreamCallResult,
  UpstreamTool,
} from '../contracts/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { abortSignalOf } from './abort-signal.js';
import { createCallQueue } from './call-queue.js';
import { createCoalescingRunner } from './coalescing-runner.js';
import { DEFAULT_LIST_CAPS, listAllTools } from './list-tools.js';
import { createRawToolCalls, RAW_DRAIN_MS, type RawToolCalls } from './raw-tool-calls.js';
import type {
  ListCaps,
  UpstreamCommonOptions,
  UpstreamConnection,
  UpstreamExitInfo,
} from './types.js';
import { createSdkCallAsks } from './sdk-call-asks.js';
import { upstreamReason } from './upstream-reason.js';
import { isConnectionClosed, startError, withoutUpstreamContent } from './start-error.js';

const CLIENT_INFO = { name: 'tutti-connector', version: '0.1.0' };
/** What the daemon can be asked by a server: elicitation, both modes; never sampling or roots. */
const CLIENT_CAPABILITIES = { elicitation: { form: {}, url: {} } };
const DEFAULT_START_TIMEOUT_MS = 30_000;
const DEFAULT_CALL_TIMEOUT_MS = 600_000;

/** What an upstream kind supplies to {@link connectUpstream}. */
export interface UpstreamSetup {
  target: string;
  transport: Transport;
  /** How the server is reached, for traces: `pipe` (stdio) or `tcp` (HTTP). */
  network: 'pipe' | 'tcp';
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
   * How often to ping a server that may go away with nothing to tell (a remote one): a
   * ping it does not answer in time, or that fails hard, ends the connection.
   */
  pingEveryMs?: number;
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

  const asks = createSdkCallAsks();
  // On stdio (the raw path) an unanswered call drains before the next one goes.
  const queue = options.serializeCalls
    ? createCallQueue(setup.intercept ? RAW_DRAIN_MS : 0)
    : undefined;
  const client = new Client(CLIENT_INFO, {
    ...setup.clientOptions,
    capabilities: CLIENT_CAPABILITIES,
    // 2026-07-28: an `input_required` answer is fulfilled through the elicitation handler
    // below (in the call's context) and retried by the SDK, inside `callTool`.
    inputRequired: { autoFulfill: true },
    listChanged: {
      tools: {
        autoRefresh: false,
        debounceMs: 0,
        // A list_changed read on a call's stream is no part of that call.
        onChanged: () =>
          asks.outside(() => {
            if (ready) relist.trigger();
          }),
      },
    },
  });
  // The answer's content was checked to be flat strings, numbers, booleans and string lists.
  client.setRequestHandler(
    'elicitation/create',
    (request) => asks.answer(request.params) as Promise<ElicitResult>,
  );
  client.onerror = (error) =>
    logger?.debug({ target, err: withoutUpstreamContent(error.message) }, 'upstream error');
  client.onclose = () => {
    if (closing || ended) {
      raw?.closeAll(gone());
      return;
    }
    ended = setup.exitInfo() ?? { reason: 'connection closed' };
    raw?.closeAll(gone());
    logger?.warn({ target, reason: ended.reason }, 'upstream ended');
    if (ready) options.onExit?.(ended);
  };

  /** Why a call cannot be answered: the upstream ended, or was closed. */
  function gone(): TuttiError {
    return ended
      ? new TuttiError('TUTTI_ERR_UPSTREAM_EXITED', { target, reason: ended.reason })
      : new TuttiError('TUTTI_ERR_UPSTREAM_CLOSED', { target });
  }

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
  // The owner may call the start off (a newer release or credential, the daemon closing).
  const abandon = () => deadline.abort('abandoned');
  options.signal?.addEventListener('abort', abandon, { once: true });
  const abandoned = () => deadline.signal.reason === 'abandoned';
  const timedOut = new Promise<never>((_, reject) => {
    deadline.signal.addEventListener('abort', () =>
      reject(
        abandoned()
          ? new TuttiError('TUTTI_ERR_UPSTREAM_START_ABANDONED', { target })
          : new TuttiError('TUTTI_ERR_UPSTREAM_START_TIMEOUT', {
              target,
              timeoutMs: startTimeoutMs,
            }),
      ),
    );
  });
  if (options.signal?.aborted) abandon();
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
    // How the process ended is read before we stop it: a server that refused initialize
    // is still running, and its reason is the refusal, not the SIGTERM we send it now.
    const exit = setup.exitInfo();
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    if (abandoned()) throw new TuttiError('TUTTI_ERR_UPSTREAM_START_ABANDONED', { target });
    throw startError(error, target, deadline.signal.aborted, startTimeoutMs, exit);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abandon);
  }
  ready = true;
  timedOut.catch(() => {});
  if (setup.intercept) {
    raw = createRawToolCalls({
      target,
      send: (message) => transport.send(message),
      timeoutMs: callTimeoutMs,
      onError: (error) => client.onerror?.(error),
      onAmbiguousElicitation: () =>
        logger?.warn(
          { target },
          'upstream asked a question while several calls were in flight: answered cancel (mcp.serializeCalls runs its calls one at a time)',
        ),
    });
    setup.intercept(raw.intercept);
  }
  // A remote server can go away with no stream to end: a bounded ping notices it.
  if (setup.pingEveryMs !== undefined) {
    const every = setup.pingEveryMs;
    const pinging = setInterval(() => {
      if (closing || ended) return clearInterval(pinging);
      client.ping({ timeout: every }).catch((error: unknown) => {
        if (closing || ended) return;
        // Any answer, an error included (a server that does not know ping), is a live server.
        const hard = setup.hardFailure?.(error);
        const silent = error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
        if (hard !== undefined || silent) {
          fail({ reason: hard ?? `it did not answer a ping within ${every} ms` });
        }
      });
    }, every);
    pinging.unref();
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

  /**
   * The one conversion of a failed call (the SDK's errors, a failed send) to a TuttiError;
   * on the SDK path, also the one place that decides the call was cancelled.
   */
  function callError(error: unknown, tool: string, signal: CallSignal | undefined): TuttiError {
    if (signal?.aborted) {
      return new TuttiError('TUTTI_ERR_UPSTREAM_CANCELLED', { target, tool }, { cause: error });
    }
    if (isConnectionClosed(error) || closing || ended) return gone();
    // An OAuth connector's sign-in is needed or its server is down: the caller is told so.
    if (isTuttiError(error) && error.code.startsWith('TUTTI_ERR_OAUTH_')) return error;
    const hard = setup.hardFailure?.(error);
    if (hard !== undefined) {
      fail({ reason: hard });
      return gone();
    }
    const cause = { cause: error };
    if (error instanceof ProtocolError) {
      const reason = upstreamReason(error.message);
      return new TuttiError(
        'TUTTI_ERR_UPSTREAM_CALL_REJECTED',
        { target, tool, rpcCode: error.code, reason },
        cause,
      );
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      return new TuttiError(
        'TUTTI_ERR_UPSTREAM_CALL_TIMEOUT',
        { target, tool, timeoutMs: callTimeoutMs },
        cause,
      );
    }
    const reason = upstreamReason(error instanceof Error ? error.message : error);
    if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
      return new TuttiError('TUTTI_ERR_UPSTREAM_INVALID_RESULT', { target, tool, reason }, cause);
    }
    return new TuttiError('TUTTI_ERR_UPSTREAM_CALL_FAILED', { target, tool, reason }, cause);
  }

  /** One call, sent now (its timeout starts here); see UpstreamClient.callTool. */
  async function send(
    name: string,
    args: Record<string, unknown> | undefined,
    callOptions: UpstreamCallOptions | undefined,
  ): Promise<UpstreamCallResult> {
    const signal = callOptions?.signal;
    if (closing || ended) throw gone();
    // Each path decides once whether the call was cancelled: the raw path in its abort
    // race, the SDK path in callError (the SDK rejects a request whose signal aborted).
    if (raw) {
      // The raw path rejects with tutti errors already, except a failed send.
      return raw.call(name, args, callOptions).catch((error: unknown) => {
        throw isTuttiError(error) ? error : callError(error, name, signal);
      });
    }
    const params: {
      name: string;
      arguments?: Record<string, unknown>;
      _meta?: Record<string, unknown>;
    } = args === undefined ? { name } : { name, arguments: args };
    if (callOptions?.meta !== undefined) params._meta = { ...callOptions.meta };
    const sdkSignal = abortSignalOf(signal);
    try {
      const result = await asks.run(callOptions, (onprogress) =>
        client.callTool(params, {
          signal: sdkSignal.signal,
          timeout: callTimeoutMs,
          ...(onprogress && { onprogress }),
        }),
      );
      return result as unknown as UpstreamCallResult;
    } catch (error) {
      throw callError(error, name, signal);
    } finally {
      sdkSignal.release();
    }
  }

  return {
    target,
    transport: setup.network,
    get protocolVersion() {
      return client.getNegotiatedProtocolVersion();
    },
    get tools() {
      return tools;
    },
    get instructions() {
      const instructions = client.getInstructions();
      return typeof instructions === 'string' ? instructions : undefined;
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
      if (queue === undefined) return send(name, args, callOptions);
      return queue.run(
        () => send(name, args, callOptions),
        signal,
        () => new TuttiError('TUTTI_ERR_UPSTREAM_CANCELLED', { target, tool: name }),
      );
    },
    async close() {
      if (closing) return;
      closing = true;
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
    },
  };
}
