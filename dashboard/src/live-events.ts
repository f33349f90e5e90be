/**
 * The daemon's event stream (`/dashboard/api/events`, server-sent events) read with fetch,
 * which, unlike EventSource, can send the session token in a header; so every event type
 * arrives, known or new. After a drop it reconnects with `?since=` the last id it saw, so
 * nothing the daemon still keeps is missed. The daemon ends the stream with `event: ended`
 * when the session ends (logout, expiry, revocation): then the page is signed out.
 */
import { authorization, signedOut } from './api';

/** One event as the daemon sends it: `id`, `type` and the type's fields. */
export interface LiveEvent {
  readonly id: number;
  readonly type: string;
  readonly at?: string;
  readonly [field: string]: unknown;
}

/** What one block of the stream was: an event, the session's end, or neither. */
type Block = LiveEvent | 'ended' | undefined;

/** Reads events until `signal` aborts; `onState` says whether the stream is connected. */
export async function followEvents(
  onEvent: (event: LiveEvent) => void,
  onState: (connected: boolean) => void,
  signal: AbortSignal,
): Promise<void> {
  let since = 0;
  while (!signal.aborted) {
    try {
      const response = await fetch(`/dashboard/api/events?since=${since}`, {
        credentials: 'omit',
        headers: authorization(),
        signal,
      });
      if (response.status === 401 || response.status === 403) {
        onState(false);
        signedOut();
        return;
      }
      if (!response.ok || !response.body) throw new Error(`events answered ${response.status}`);
      onState(true);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = parseBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (block === 'ended') {
            onState(false);
            signedOut();
            return;
          }
          if (block) {
            since = Math.max(since, block.id);
            onEvent(block);
          }
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      if (signal.aborted) return;
    }
    onState(false);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function parseBlock(block: string): Block {
  let data = '';
  for (const line of block.split('\n')) {
    if (line === 'event: ended') return 'ended';
    if (line.startsWith('data:')) data += line.slice(5).trim();
  }
  if (!data) return undefined;
  try {
    const event = JSON.parse(data) as LiveEvent;
    return typeof event.id === 'number' && typeof event.type === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}
