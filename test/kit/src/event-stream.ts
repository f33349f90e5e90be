/**
 * A reader of a real daemon's `GET /v1/events` for tests: collects every event and waits
 * for the first one (from now, or from any point) that matches.
 */
import type { TuttidProcess } from './tuttid.js';
import { WAIT_BOUND_MS } from './waits.js';

/** One event as the stream carries it. */
export interface StreamedEvent {
  readonly id: number;
  readonly type: string;
  readonly [key: string]: unknown;
}

/** An open event stream. */
export interface EventReader {
  readonly events: StreamedEvent[];
  /** Resolves with the first event at index `from` or later that matches. */
  waitFor(
    match: (event: StreamedEvent) => boolean,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<StreamedEvent>;
  close(): void;
}

/** Opens the daemon's event stream. */
export async function openEvents(
  daemon: Pick<TuttidProcess, 'ready' | 'controlToken'>,
  options: { since?: number } = {},
): Promise<EventReader> {
  const abort = new AbortController();
  const query = options.since === undefined ? '' : `?since=${options.since}`;
  const response = await fetch(`${daemon.ready.controlUrl}/v1/events${query}`, {
    headers: { authorization: `Bearer ${daemon.controlToken}` },
    signal: abort.signal,
  });
  if (response.status !== 200 || !response.body) {
    throw new Error(`GET /v1/events answered ${response.status}`);
  }
  const events: StreamedEvent[] = [];
  const waiters = new Set<() => void>();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6))
            .join('\n');
          if (data) events.push(JSON.parse(data) as StreamedEvent);
          for (const wake of [...waiters]) wake();
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // Closed by the test.
    }
  })();
  return {
    events,
    waitFor(match, options = {}) {
      const from = options.from ?? 0;
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.slice(from).find(match);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching event within ${options.timeoutMs ?? WAIT_BOUND_MS} ms`));
        }, options.timeoutMs ?? WAIT_BOUND_MS);
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}
