/**
 * In-flight `tools/call`s keyed by (token, JSON-RPC request id), so a
 * `notifications/cancelled` from the same token, a closed response or server shutdown
 * aborts the upstream call through its signal.
 */
import type { CallSignal } from '../contracts/index.js';
import { CallCancellation } from './call-signal.js';
import type { RpcId } from './json-rpc.js';

/** Why an in-flight call was aborted; it is the signal's `reason`. */
export type AbortCause = 'cancelled' | 'disconnected' | 'shutdown';

/** The registry of running calls. */
export interface InFlightCalls {
  /** Registers a call; returns its signal and the function that unregisters it. */
  start(tokenId: string, id: RpcId): { signal: CallSignal; done: () => void };
  /** Aborts the call `id` of `tokenId`; returns true when one was running. */
  cancel(tokenId: string, id: RpcId, cause: AbortCause): boolean;
  /** Aborts every running call. */
  abortAll(cause: AbortCause): void;
  /** Number of running calls. */
  readonly size: number;
}

/** Creates an empty in-flight registry. */
export function createInFlightCalls(): InFlightCalls {
  const calls = new Map<string, CallCancellation>();
  const keyOf = (tokenId: string, id: RpcId) => `${tokenId}\u0000${JSON.stringify(id)}`;
  return {
    start(tokenId, id) {
      const key = keyOf(tokenId, id);
      const controller = new CallCancellation();
      calls.set(key, controller);
      return {
        signal: controller,
        done: () => {
          if (calls.get(key) === controller) calls.delete(key);
        },
      };
    },
    cancel(tokenId, id, cause) {
      const controller = calls.get(keyOf(tokenId, id));
      if (!controller) return false;
      controller.abort(cause);
      return true;
    },
    abortAll(cause) {
      for (const controller of calls.values()) controller.abort(cause);
      calls.clear();
    },
    get size() {
      return calls.size;
    },
  };
}
