/**
 * `tools/call` on a 2025-era upstream without the SDK client's per-call machinery: own
 * string request ids and pending map, the raw result, one interval sweep for every call's
 * timeout (not a timer per call), and `notifications/cancelled` on abort and on timeout.
 *
 * Why: the SDK's `Client.callTool` parses every incoming line and every result with zod,
 * and arms a timer and AbortSignal listeners per request; on the connector's hot path that
 * was most of the upstream leg's cost. The result is the SDK's: one that is plainly an MCP
 * tool result is returned as is (it is what the SDK's schema would return); anything else
 * goes through the SDK's own `CallToolResultSchema` (defaults, stripped keys). Failures are
 * tutti errors: a JSON-RPC error answer TUTTI_ERR_UPSTREAM_CALL_REJECTED, a result the
 * schema refuses _INVALID_RESULT, a timeout _CALL_TIMEOUT, an abort _CANCELLED.
 *
 * What the upstream asks during a call comes here too. A progress notification names its
 * call by the token the call sent (its request id); it reaches that call's `onProgress` in
 * order, and only while the call is pending. An `elicitation/create` names nothing on stdio,
 * so it goes to the call only when exactly one call is in flight (see {@link
 * RAW_DRAIN_MS}); otherwise, or when that call has nobody to ask, it is answered `cancel`
 * at once. Every other request (`ping`, `roots/list`, ...) is left to the SDK client.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import type {
  CallProgress,
  ElicitationAnswer,
  ElicitationRequest,
  UpstreamCallOptions,
  UpstreamCallResult,
} from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { isPlainObject } from '../util/objects.js';
import { askPerson, CANCEL, readElicitationRequest, readProgress } from './elicitation-checks.js';
import { upstreamReason } from './upstream-reason.js';

/** Prefix of this module's request ids; the SDK's own ids are numbers, so they never meet. */
const ID_PREFIX = 'tutti-';
/** Longest sweep period; shorter when the timeout is short, so it fires within ~10%. */
const MAX_SWEEP_MS = 1000;
const MIN_SWEEP_MS = 5;
/** Longest schema complaint carried into an error message. */
const PROBLEM_LIMIT = 300;
/**
 * How long a call that ended without its answer (cancelled, timed out) still counts as in
 * flight for routing an elicitation: the upstream may have asked for it just before it saw
 * the cancellation, and that question must not reach the call that follows.
 */
export const RAW_DRAIN_MS = 1000;
/** Most questions of one call waiting on the person at once; more are answered `cancel`. */
export const MAX_OPEN_ASKS = 8;

interface Pending {
  /** The upstream tool name, for errors. */
  readonly tool: string;
  readonly resolve: (result: UpstreamCallResult) => void;
  readonly reject: (error: Error) => void;
  /** Sweep tick at which the call times out. */
  readonly expiresAt: number;
  readonly elicit: ((request: ElicitationRequest) => Promise<ElicitationAnswer>) | undefined;
  readonly onProgress: ((progress: CallProgress) => void) | undefined;
  /** Answers `cancel` to the elicitations of this call still waiting on the person. */
  readonly asking: Set<() => void>;
}

/** Raw `tools/call`s over one upstream transport. */
export interface RawToolCalls {
  /** Consumes an answer to one of its own requests (late ones too); false for anything else. */
  intercept(message: unknown): boolean;
  /**
   * Sends `tools/call` with `args` unchanged and `options.meta` as its `_meta` (with the
   * progress token when `options.onProgress` is given); rejects with a TuttiError, or as
   * `send` did.
   */
  call(
    name: string,
    args: Record<string, unknown> | undefined,
    options?: UpstreamCallOptions,
  ): Promise<UpstreamCallResult>;
  /** Rejects every pending call with `error` and stops the sweep. */
  closeAll(error: Error): void;
  /** Number of pending calls. */
  readonly size: number;
}

/** Options of {@link createRawToolCalls}. */
export interface RawToolCallsOptions {
  /** Name of the upstream in errors (command basename or URL origin, never a secret). */
  target: string;
  /** Sends one message on the upstream transport. */
  send(message: JSONRPCMessage): Promise<void>;
  /** Timeout of one call in ms. */
  timeoutMs: number;
  /** Told when a cancellation or an answer could not be sent. */
  onError?(error: Error): void;
  /**
   * Told (once per upstream) that an elicitation came while several calls were in flight
   * and was answered `cancel`.
   */
  onAmbiguousElicitation?(): void;
}

/** True for a result the SDK's `CallToolResultSchema` would return unchanged. */
function isPlainToolResult(result: unknown): result is UpstreamCallResult {
  if (!isPlainObject(result)) return false;
  const { content, isError } = result;
  if (!Array.isArray(content) || '_meta' in result || 'resultType' in result) return false;
  if (isError !== undefined && typeof isError !== 'boolean') return false;
  for (const block of content) {
    if (block === null || typeof block !== 'object') return false;
    let keys = 0;
    for (const _ in block) keys += 1;
    const { type, text } = block as Record<string, unknown>;
    if (keys !== 2 || type !== 'text' || typeof text !== 'string') return false;
  }
  return true;
}

/**
 * The result the SDK's legacy codec and `CallToolResultSchema` make of `raw`, or the
 * schema's complaint about it as text.
 */
function decodeResult(raw: unknown): UpstreamCallResult | string {
  if (isPlainToolResult(raw)) return raw;
  let value = raw;
  if (isPlainObject(value) && 'resultType' in value) {
    const { resultType: _, ...rest } = value;
    value = rest;
  }
  const parsed = CallToolResultSchema.safeParse(value);
  if (!parsed.success) return parsed.error.message.replace(/\s+/g, ' ').slice(0, PROBLEM_LIMIT);
  return parsed.data as UpstreamCallResult;
}

/**
 * Creates the raw call path over one transport; the caller hands every parsed incoming
 * message through `intercept` before anything else sees it.
 */
export function createRawToolCalls(options: RawToolCallsOptions): RawToolCalls {
  const { target } = options;
  const pending = new Map<string, Pending>();
  /** Calls that ended without their answer, by id: when they stop counting as in flight. */
  const draining = new Map<string, number>();
  const sweepMs = Math.min(MAX_SWEEP_MS, Math.max(MIN_SWEEP_MS, Math.ceil(options.timeoutMs / 10)));
  const ticksToTimeout = Math.ceil(options.timeoutMs / sweepMs);
  let nextId = 0;
  let tick = 0;
  let sweeper: NodeJS.Timeout | undefined;
  let warnedAmbiguous = false;

  const sendOrReport = (message: JSONRPCMessage, what: string) => {
    options
      .send(message)
      .catch((error: unknown) => options.onError?.(new Error(`Failed to send ${what}: ${error}`)));
  };
  /** Forgets the calls that drained (entries are in expiry order: it stops at a live one). */
  const pruneDrained = (now: number) => {
    for (const [id, until] of draining) {
      if (until > now) return;
      draining.delete(id);
    }
  };
  const cancelUpstream = (id: string, reason: string) => {
    const now = Date.now();
    pruneDrained(now);
    draining.set(id, now + RAW_DRAIN_MS);
    sendOrReport(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } },
      'cancellation',
    );
  };
  const cancelled = (tool: string) =>
    new TuttiError('TUTTI_ERR_UPSTREAM_CANCELLED', { target, tool });

  /** Calls in flight for routing: pending ones and those still draining. */
  const inFlight = () => {
    pruneDrained(Date.now());
    return pending.size + draining.size;
  };

  // One interval for all calls; it stops itself once nothing is pending.
  const sweep = () => {
    tick += 1;
    if (pending.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
      return;
    }
    for (const [id, call] of pending) {
      if (call.expiresAt > tick) continue;
      pending.delete(id);
      cancelUpstream(id, 'timed out');
      call.reject(
        new TuttiError('TUTTI_ERR_UPSTREAM_CALL_TIMEOUT', {
          target,
          tool: call.tool,
          timeoutMs: options.timeoutMs,
        }),
      );
    }
  };

  /** Routes a progress notification to its call; true when the token is one of ours. */
  const progressed = (params: unknown): boolean => {
    const token = isPlainObject(params) ? params.progressToken : undefined;
    if (typeof token !== 'string' || !token.startsWith(ID_PREFIX)) return false;
    const call = pending.get(token);
    const progress = readProgress(params);
    if (call?.onProgress && progress) {
      try {
        call.onProgress(progress);
      } catch {
        // The listener's failure is its own; the call goes on.
      }
    }
    return true;
  };

  /** Answers one `elicitation/create` of the upstream, once, on the same transport. */
  const elicited = (id: string | number, params: unknown) => {
    const request = readElicitationRequest(params);
    if (request === undefined) {
      sendOrReport(
        { jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid elicitation request' } },
        'an elicitation answer',
      );
      return;
    }
    const reply = (answer: ElicitationAnswer) =>
      sendOrReport({ jsonrpc: '2.0', id, result: { ...answer } }, 'an elicitation answer');
    const flying = inFlight();
    const [only] = pending.values();
    if (
      flying !== 1 ||
      only === undefined ||
      only.elicit === undefined ||
      only.asking.size >= MAX_OPEN_ASKS
    ) {
      if (flying > 1 && !warnedAmbiguous) {
        warnedAmbiguous = true;
        options.onAmbiguousElicitation?.();
      }
      reply(CANCEL);
      return;
    }
    let answered = false;
    const once = (answer: ElicitationAnswer) => {
      if (answered) return;
      answered = true;
      only.asking.delete(cancelNow);
      reply(answer);
    };
    const cancelNow = () => once(CANCEL);
    only.asking.add(cancelNow);
    void askPerson(only.elicit, request).then(once);
  };

  return {
    intercept(message) {
      if (message === null || typeof message !== 'object') return false;
      const { id, method } = message as { id?: unknown; method?: unknown };
      if (method !== undefined) {
        if (method === 'notifications/progress' && id === undefined) {
          return progressed((message as { params?: unknown }).params);
        }
        if (method !== 'elicitation/create') return false;
        if (typeof id !== 'string' && typeof id !== 'number') return false;
        elicited(id, (message as { params?: unknown }).params);
        return true;
      }
      if (typeof id !== 'string' || !id.startsWith(ID_PREFIX)) return false;
      draining.delete(id);
      const call = pending.get(id);
      if (!call) return true;
      pending.delete(id);
      const { result, error } = message as { result?: unknown; error?: unknown };
      if (error !== undefined) {
        const { code, message: text } = isPlainObject(error) ? error : {};
        call.reject(
          new TuttiError('TUTTI_ERR_UPSTREAM_CALL_REJECTED', {
            target,
            tool: call.tool,
            rpcCode: Number(code),
            reason: upstreamReason(text),
          }),
        );
        return true;
      }
      const decoded = decodeResult(result);
      if (typeof decoded === 'string') {
        call.reject(
          new TuttiError('TUTTI_ERR_UPSTREAM_INVALID_RESULT', {
            target,
            tool: call.tool,
            reason: decoded,
          }),
        );
      } else call.resolve(decoded);
      return true;
    },

    call(name, args, callOptions = {}) {
      const { signal, meta, onProgress } = callOptions;
      if (signal?.aborted) return Promise.reject(cancelled(name));
      nextId += 1;
      const id = `${ID_PREFIX}${nextId}`;
      const params: Record<string, unknown> =
        args === undefined ? { name } : { name, arguments: args };
      // The request id is the progress token: unique on this upstream, and never a caller's.
      if (onProgress !== undefined) params._meta = { ...meta, progressToken: id };
      else if (meta !== undefined) params._meta = meta;
      return new Promise<UpstreamCallResult>((resolve, reject) => {
        let onAbort: (() => void) | undefined;
        const asking = new Set<() => void>();
        const settle = () => {
          if (onAbort) signal?.removeEventListener('abort', onAbort);
          // A question still open when its call ended is answered now, not by the person.
          for (const cancelNow of [...asking]) cancelNow();
        };
        pending.set(id, {
          tool: name,
          resolve: (result) => {
            settle();
            resolve(result);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
          expiresAt: tick + ticksToTimeout + 1,
          elicit: callOptions.elicit,
          onProgress,
          asking,
        });
        if (signal) {
          // The one abort race of a call: the caller's signal against the upstream's answer.
          onAbort = () => {
            const call = pending.get(id);
            if (!call) return;
            pending.delete(id);
            cancelUpstream(id, String(signal.reason));
            call.reject(cancelled(name));
          };
          signal.addEventListener('abort', onAbort, { once: true });
        }
        sweeper ??= setInterval(sweep, sweepMs).unref();
        options
          .send({ jsonrpc: '2.0', id, method: 'tools/call', params })
          .catch((error: unknown) => {
            const call = pending.get(id);
            if (!call) return;
            pending.delete(id);
            call.reject(error as Error);
          });
      });
    },

    closeAll(error) {
      clearInterval(sweeper);
      sweeper = undefined;
      draining.clear();
      const calls = [...pending.values()];
      pending.clear();
      for (const call of calls) call.reject(error);
    },

    get size() {
      return pending.size;
    },
  };
}
