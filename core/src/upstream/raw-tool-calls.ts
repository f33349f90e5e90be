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
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import type { CallSignal, UpstreamCallResult } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { isPlainObject } from '../util/objects.js';
import { upstreamReason } from './upstream-reason.js';

/** Prefix of this module's request ids; the SDK's own ids are numbers, so they never meet. */
const ID_PREFIX = 'tutti-';
/** Longest sweep period; shorter when the timeout is short, so it fires within ~10%. */
const MAX_SWEEP_MS = 1000;
const MIN_SWEEP_MS = 5;
/** Longest schema complaint carried into an error message. */
const PROBLEM_LIMIT = 300;

interface Pending {
  /** The upstream tool name, for errors. */
  readonly tool: string;
  readonly resolve: (result: UpstreamCallResult) => void;
  readonly reject: (error: Error) => void;
  /** Sweep tick at which the call times out. */
  readonly expiresAt: number;
}

/** Raw `tools/call`s over one upstream transport. */
export interface RawToolCalls {
  /** Consumes an answer to one of its own requests (late ones too); false for anything else. */
  intercept(message: unknown): boolean;
  /**
   * Sends `tools/call` with `args` unchanged and `meta` as its `_meta`; rejects with a
   * TuttiError, or as `send` did.
   */
  call(
    name: string,
    args: Record<string, unknown> | undefined,
    signal?: CallSignal,
    meta?: Readonly<Record<string, string>>,
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
  /** Told when a cancellation could not be sent. */
  onError?(error: Error): void;
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
  const sweepMs = Math.min(MAX_SWEEP_MS, Math.max(MIN_SWEEP_MS, Math.ceil(options.timeoutMs / 10)));
  const ticksToTimeout = Math.ceil(options.timeoutMs / sweepMs);
  let nextId = 0;
  let tick = 0;
  let sweeper: NodeJS.Timeout | undefined;

  const cancelUpstream = (id: string, reason: string) => {
    options
      .send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason },
      })
      .catch((error: unknown) =>
        options.onError?.(new Error(`Failed to send cancellation: ${error}`)),
      );
  };
  const cancelled = (tool: string) =>
    new TuttiError('TUTTI_ERR_UPSTREAM_CANCELLED', { target, tool });

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

  return {
    intercept(message) {
      if (message === null || typeof message !== 'object') return false;
      const { id } = message as { id?: unknown };
      if (typeof id !== 'string' || !id.startsWith(ID_PREFIX) || 'method' in message) return false;
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

    call(name, args, signal, meta) {
      if (signal?.aborted) return Promise.reject(cancelled(name));
      nextId += 1;
      const id = `${ID_PREFIX}${nextId}`;
      const params: Record<string, unknown> =
        args === undefined ? { name } : { name, arguments: args };
      if (meta !== undefined) params._meta = meta;
      return new Promise<UpstreamCallResult>((resolve, reject) => {
        let onAbort: (() => void) | undefined;
        const settle = () => {
          if (onAbort) signal?.removeEventListener('abort', onAbort);
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
        });
        if (signal) {
          // The one abort race of a call: the caller's signal against the upstream's answer.
          onAbort = () => {
            if (!pending.delete(id)) return;
            cancelUpstream(id, String(signal.reason));
            reject(cancelled(name));
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
      const calls = [...pending.values()];
      pending.clear();
      for (const call of calls) call.reject(error);
    },

    get size() {
      return pending.size;
    },
  };
}
