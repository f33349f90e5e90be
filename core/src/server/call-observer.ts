/**
 * What the `connector` server tells about each `tools/call` it serves, and what it is told
 * back: the one seam through which the daemon audits and traces calls. The server knows
 * nothing of audit files or spans; it says when a call began, when its upstream leg began
 * and ended, and how the call was answered. Everything an observer does runs off the answer
 * where it can (the audit writes in batches later).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { TokenSession } from '../auth/index.js';
import type { ToolBinding, UpstreamCallResult } from '../contracts/index.js';
import type { RpcId } from './json-rpc.js';

/** A `tools/call` as it arrived. */
export interface ToolCallArrival {
  readonly session: TokenSession;
  /** The protocol version it came in. */
  readonly protocol: string;
  readonly requestId: RpcId;
  /** The request's params (`name`, `arguments`, `_meta`), as parsed; never changed. */
  readonly params: unknown;
  readonly headers: IncomingHttpHeaders;
  /** `performance.now()` when it arrived. */
  readonly startedAt: number;
}

/** How a call was answered (its result, if any, came with {@link ObservedCall.upstreamEnded}). */
export interface ToolCallAnswer {
  /** The error the call failed with, when it did (a TuttiError or an RpcError). */
  readonly error?: unknown;
  /** The JSON-RPC error code sent, when the answer was an error. */
  readonly rpcCode?: number;
  /** Length of the result's JSON text (0 for an error). */
  readonly resultBytes: number;
  /** True when the call was aborted (the agent cancelled or went away, or shutdown). */
  readonly aborted: boolean;
}

/** One observed call. */
export interface ObservedCall {
  /**
   * The call resolved to `binding` and goes upstream now: returns the members to add to
   * the upstream request's `_meta` (trace context), or undefined.
   */
  upstream(binding: ToolBinding): Readonly<Record<string, string>> | undefined;
  /** The upstream leg ended: with its result, or with the error it failed with. */
  upstreamEnded(result: UpstreamCallResult | undefined, error: unknown): void;
  /** The call was answered (once, last). */
  answered(answer: ToolCallAnswer): void;
}

/** Observes `tools/call`s. */
export interface ToolCallObserver {
  /** A call arrived: its handle, or undefined to leave it unobserved. */
  begin(arrival: ToolCallArrival): ObservedCall | undefined;
}
