/**
 * One-at-a-time calls (`mcp.serializeCalls`): a FIFO of calls waiting for the upstream. A
 * server that elicits over stdio can have its question routed only while a single call is
 * in flight, so its calls run one after the other. A waiting call whose signal aborts
 * leaves the queue at once; a call's timeout starts when it is sent, not while it waits.
 * After a call that was cancelled or timed out, the next one waits `drainMs` more: on stdio
 * such a call still counts as in flight that long (raw-tool-calls.ts), and a question the
 * next call asked in that time would be answered `cancel` as if two calls were running.
 */
import type { CallSignal } from '../contracts/index.js';
import { isTuttiError } from '../errors/index.js';

/** Runs calls in arrival order, one at a time. */
export interface CallQueue {
  /**
   * Runs `send` once every earlier call settled. Rejects with `cancelled()` (and never
   * runs `send`) when `signal` aborts while the call waits.
   */
  run<T>(
    send: () => Promise<T>,
    signal: CallSignal | undefined,
    cancelled: () => Error,
  ): Promise<T>;
  /** Calls waiting (not the one running). */
  readonly waiting: number;
}

/** True for a call that ended without its answer, whose upstream request may still run. */
function unanswered(error: unknown): boolean {
  return (
    isTuttiError(error, 'TUTTI_ERR_UPSTREAM_CANCELLED') ||
    isTuttiError(error, 'TUTTI_ERR_UPSTREAM_CALL_TIMEOUT')
  );
}

/** Creates an empty queue; `drainMs` is the pause after an unanswered call (default 0). */
export function createCallQueue(drainMs = 0): CallQueue {
  const waiting: (() => void)[] = [];
  let busy = false;

  const next = () => {
    const go = waiting.shift();
    if (go) go();
    else busy = false;
  };

  const turn = (signal: CallSignal | undefined, cancelled: () => Error) =>
    new Promise<void>((resolve, reject) => {
      if (!busy) {
        busy = true;
        resolve();
        return;
      }
      const onAbort = () => {
        const at = waiting.indexOf(go);
        if (at >= 0) waiting.splice(at, 1);
        reject(cancelled());
      };
      const go = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      waiting.push(go);
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  return {
    async run(send, signal, cancelled) {
      if (signal?.aborted) throw cancelled();
      await turn(signal, cancelled);
      let result: Awaited<ReturnType<typeof send>>;
      try {
        result = await send();
      } catch (error) {
        if (drainMs > 0 && unanswered(error)) setTimeout(next, drainMs).unref();
        else next();
        throw error;
      }
      next();
      return result;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
