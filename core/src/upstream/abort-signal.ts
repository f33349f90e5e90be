/**
 * A real `AbortSignal` for an upstream call's {@link CallSignal}, for the SDK client's
 * request path, which needs one; the raw stdio path uses the call signal as it is.
 */
import type { CallSignal } from '../contracts/index.js';

/** `signal` itself when it is an AbortSignal, else one that follows it; `release` unlinks. */
export function abortSignalOf(signal: CallSignal | undefined): {
  signal: AbortSignal | undefined;
  release: () => void;
} {
  if (signal === undefined || signal instanceof AbortSignal) {
    return { signal, release: () => undefined };
  }
  if (signal.aborted) return { signal: AbortSignal.abort(signal.reason), release: () => undefined };
  const controller = new AbortController();
  const follow = () => controller.abort(signal.reason);
  signal.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener('abort', follow) };
}
