/**
 * Observation of multi round-trip calls (2026-07-28): one observed call per upstream call,
 * however many HTTP requests (legs) it takes. The first leg begins it; a leg answered
 * `input_required` is not its answer; the leg that delivers the final outcome answers it;
 * retries are not observed again but lead to the call they resume. A call that ends while
 * parked (expired, its token revoked, shutdown) is answered by the parked calls themselves.
 */
import type { ObservedCall, ToolCallAnswer, ToolCallObserver } from './call-observer.js';
import { MODERN_PROTOCOL_VERSION } from './constants.js';
import { isRetry } from './input-required.js';

/** The observer's handle on one leg of a modern `tools/call`. */
export class LegObservation implements ObservedCall {
  #call: ObservedCall | undefined;
  #deferred = false;

  /** `call`: the observed call this leg belongs to (none yet for a retry). */
  constructor(call: ObservedCall | undefined) {
    this.#call = call;
  }

  /** The observed call this leg belongs to. */
  get call(): ObservedCall | undefined {
    return this.#call;
  }

  /** A retry whose state verified: it belongs to `call`. */
  bind(call: ObservedCall | undefined): void {
    this.#call = call;
  }

  /** This leg is answered `input_required`: its answer is not the call's. */
  defer(): void {
    this.#deferred = true;
  }

  upstream(binding: Parameters<ObservedCall['upstream']>[0]) {
    return this.#call?.upstream(binding);
  }

  upstreamEnded(...ended: Parameters<ObservedCall['upstreamEnded']>): void {
    this.#call?.upstreamEnded(...ended);
  }

  answered(answer: ToolCallAnswer): void {
    if (this.#deferred) return;
    const call = this.#call;
    this.#call = undefined;
    call?.answered(answer);
  }
}

/**
 * `observer` as the server's edge uses it: modern `tools/call` legs get a
 * {@link LegObservation} (a retry one bound to no call until its state verifies); every
 * other request is observed by `observer` as it is.
 */
export function observingLegs(observer: ToolCallObserver): ToolCallObserver {
  return {
    begin(arrival) {
      if (arrival.protocol !== MODERN_PROTOCOL_VERSION) return observer.begin(arrival);
      if (isRetry(arrival.params)) return new LegObservation(undefined);
      const call = observer.begin(arrival);
      return call && new LegObservation(call);
    },
  };
}

/** The leg `observed` is, when it is one. */
export function legOf(observed: ObservedCall | undefined): LegObservation | undefined {
  return observed instanceof LegObservation ? observed : undefined;
}
