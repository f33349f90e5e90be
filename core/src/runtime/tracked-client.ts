/**
 * Wraps an upstream connection as the client the registry hands to calls, counting calls in
 * flight so that an old generation is closed only after its calls finished (zero failed
 * calls across an upgrade), and counting calls, failed calls and tool errors (`isError`
 * results, which are answers, not failures) apart for `/metrics`.
 */
import type { UpstreamCallOptions, UpstreamClient } from '../contracts/index.js';

/** Counters the tracked client reports to. */
export interface CallCounters {
  call(connectorKey: string): void;
  /** A call that failed: answered with an error, not a result. */
  error(connectorKey: string): void;
  /** A call answered with a result whose `isError` is true (the tool ran and failed). */
  toolError(connectorKey: string): void;
}

/** An upstream client whose in-flight calls can be waited for. */
export interface TrackedClient extends UpstreamClient {
  /** Calls started and not yet settled. */
  readonly inFlight: number;
  /** Resolves when no call is in flight, or after `timeoutMs`, whichever comes first. */
  drained(timeoutMs: number): Promise<void>;
}

/** Wraps `client` (the upstream connection of `connectorKey`). */
export function trackClient(
  connectorKey: string,
  client: UpstreamClient,
  counters?: CallCounters,
): TrackedClient {
  let inFlight = 0;
  let waiters: (() => void)[] = [];
  const settle = () => {
    inFlight--;
    if (inFlight === 0) {
      for (const wake of waiters) wake();
      waiters = [];
    }
  };
  return {
    get protocolVersion() {
      return client.protocolVersion;
    },
    ...(client.transport && { transport: client.transport }),
    get inFlight() {
      return inFlight;
    },
    async callTool(name, args, options?: UpstreamCallOptions) {
      inFlight++;
      counters?.call(connectorKey);
      try {
        const result = await client.callTool(name, args, options);
        if (result.isError === true) counters?.toolError(connectorKey);
        return result;
      } catch (error) {
        counters?.error(connectorKey);
        throw error;
      } finally {
        settle();
      }
    },
    drained(timeoutMs) {
      if (inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        timer.unref();
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
