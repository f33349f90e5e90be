/**
 * Who answers an upstream's `elicitation/create` on the SDK client's path (HTTP, both eras).
 *
 * The SDK hands the request to one handler with nothing that names the `tools/call` it
 * belongs to. But it runs that handler in the async context of the call: a 2025 server
 * sends the request on the SSE response stream of the call's POST, which the transport
 * reads in the context of the `callTool` that sent it; a 2026-07-28 server answers the call
 * `input_required`, and the SDK's driver runs the handler while resolving that answer. So
 * an AsyncLocalStorage around `client.callTool(...)` identifies the call. A request with no
 * call in its context (the standalone GET stream, a re-list) is answered `cancel`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type {
  ElicitationAnswer,
  ElicitationRequest,
  UpstreamCallOptions,
} from '../contracts/index.js';
import { askPerson, CANCEL, readElicitationRequest, readProgress } from './elicitation-checks.js';
import { MAX_OPEN_ASKS } from './raw-tool-calls.js';

/** One call on the SDK path, as the elicitation handler finds it. */
interface AskingCall {
  readonly elicit: ((request: ElicitationRequest) => Promise<ElicitationAnswer>) | undefined;
  /** Answers `cancel` to the questions of this call still waiting on the person. */
  readonly asking: Set<() => void>;
  ended: boolean;
}

/** The routing of one SDK client's elicitations and progress to its calls. */
export interface SdkCallAsks {
  /**
   * Runs `send` as one call with `options`: elicitations in its context go to
   * `options.elicit`, and `send` is given the `onprogress` to pass to the SDK (undefined
   * without `options.onProgress`, so the request carries no progress token).
   */
  run<T>(
    options: UpstreamCallOptions | undefined,
    send: (onprogress: ((progress: unknown) => void) | undefined) => Promise<T>,
  ): Promise<T>;
  /** Runs `fn` outside any call (work a call's context merely triggered, e.g. a re-list). */
  outside<T>(fn: () => T): T;
  /**
   * The answer to one `elicitation/create` (its params in); rejects a malformed request
   * with the ProtocolError the SDK sends back as `-32602`.
   */
  answer(params: unknown): Promise<ElicitationAnswer>;
}

/** Creates the routing for one client. */
export function createSdkCallAsks(): SdkCallAsks {
  const calls = new AsyncLocalStorage<AskingCall>();
  return {
    async run(options, send) {
      const call: AskingCall = { elicit: options?.elicit, asking: new Set(), ended: false };
      const listener = options?.onProgress;
      const onprogress =
        listener === undefined
          ? undefined
          : (params: unknown) => {
              const progress = readProgress(params);
              if (call.ended || progress === undefined) return;
              try {
                listener(progress);
              } catch {
                // The listener's failure is its own; the call goes on.
              }
            };
      try {
        return await calls.run(call, () => send(onprogress));
      } finally {
        call.ended = true;
        for (const cancelNow of [...call.asking]) cancelNow();
      }
    },
    outside(fn) {
      return calls.exit(fn);
    },
    answer(params) {
      const request = readElicitationRequest(params);
      if (request === undefined) {
        return Promise.reject(
          new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid elicitation request'),
        );
      }
      const call = calls.getStore();
      if (!call || call.ended || !call.elicit || call.asking.size >= MAX_OPEN_ASKS) {
        return Promise.resolve(CANCEL);
      }
      return new Promise((resolve) => {
        const done = (answer: ElicitationAnswer) => {
          call.asking.delete(cancelNow);
          resolve(answer);
        };
        const cancelNow = () => done(CANCEL);
        call.asking.add(cancelNow);
        void askPerson(call.elicit, request).then(done);
      });
    },
  };
}
