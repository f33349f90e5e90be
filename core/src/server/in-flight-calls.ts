/**
 * The cancellation of running requests, keyed by (token, JSON-RPC request id): the edge
 * starts one per request, and a `notifications/cancelled` from the same token, a closed
 * response or server shutdown aborts it. Its signal is the one representation of a
 * cancellation on the whole call path: the upstream gets it as it is, with the
 * {@link AbortCause} as its `reason`.
 */
import type { CallSignal } from '../contracts/index.js';
import type { RpcId } from './json-rpc.js';

/** Why an in-flight request was aborted; it is the signal's `reason`. */
export type AbortCause = 'cancelled' | 'disconnected' | 'shutdown';

/**
 * A one-shot abort flag with listeners; `abort()` runs them once, in order.
 *
 * Why not an AbortController: Node 20 builds each AbortSignal as a full EventTarget, and
 * removing its listeners again is slow too (see docs/benchmarks.md). A call has one or two
 * listeners, so an array is all the bookkeeping needed.
 */
export class CallCancellation implements CallSignal {
  #aborted = false;
  #reason: unknown;
  #listeners: (() => void)[] = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why the call was aborted (undefined until then). */
  get reason(): unknown {
    return this.#reason;
  }

  /** Adds `listener`; each runs at most once (as with `{ once: true }`). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.#aborted) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.#listeners.indexOf(listener);
    if (index >= 0) this.#listeners.splice(index, 1);
  }

  /** Aborts with `reason` and runs the listeners; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** One running request: its signal, and the function that unregisters it. */
export interface InFlightCall {
  readonly signal: CallCancellation;
  done(): void;
}

/** The registry of running requests of one server. */
export interface InFlightCalls {
  /** Registers a request of `tokenId`. */
  start(tokenId: string, id: RpcId): InFlightCall;
  /** Aborts the request `id` of `tokenId`; returns true when one was running. */
  cancel(tokenId: string, id: RpcId, cause: AbortCause): boolean;
  /** Aborts every running request. */
  abortAll(cause: AbortCause): void;
  /** Number of running requests. */
  readonly size: number;
}

/** Creates an empty in-flight registry. */
export function createInFlightCalls(): InFlightCalls {
  const calls = new Map<string, CallCancellation>();
  const keyOf = (tokenId: string, id: RpcId) => `${tokenId}\u0000${JSON.stringify(id)}`;
  return {
    start(tokenId, id) {
      const key = keyOf(tokenId, id);
      const signal = new CallCancellation();
      calls.set(key, signal);
      return {
        signal,
        done: () => {
          if (calls.get(key) === signal) calls.delete(key);
        },
      };
    },
    cancel(tokenId, id, cause) {
      const signal = calls.get(keyOf(tokenId, id));
      if (!signal) return false;
      signal.abort(cause);
      return true;
    },
    abortAll(cause) {
      for (const signal of calls.values()) signal.abort(cause);
      calls.clear();
    },
    get size() {
      return calls.size;
    },
  };
}
