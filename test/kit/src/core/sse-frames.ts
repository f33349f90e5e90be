/** Reads the frames of an SSE response body one at a time, for the server tests. */

/** One SSE frame: a `:` comment, or the JSON message of its `data:` line. */
export interface SseFrame {
  readonly comment?: string;
  readonly message?: Record<string, unknown>;
}

/** A reader of SSE frames. */
export interface SseFrames {
  /** The next frame, or undefined at the end of the stream. */
  next(): Promise<SseFrame | undefined>;
  /** Closes the stream from the client side. */
  cancel(): Promise<void>;
}

/** The frames of `body`. */
export function sseFrames(body: ReadableStream<Uint8Array>): SseFrames {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (raw.startsWith(':')) return { comment: raw.slice(1).trim() };
          const data = raw.split('\n').find((line) => line.startsWith('data: '));
          return { message: JSON.parse(data!.slice(6)) };
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}
