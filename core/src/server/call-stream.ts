/**
 * The streamed answer of one request (MCP Streamable HTTP): an SSE response carrying the
 * server's messages about the request (progress, a relayed `elicitation/create`) and then
 * its JSON-RPC response as the last event, after which the stream ends. The stream starts
 * with the first message: a call that has nothing to relay is answered as plain JSON, as
 * fast and byte for byte as any other. Keep-alive comments hold a started stream open while
 * the person takes their time. Both surfaces use it (progress on either era).
 */
import type { ServerResponse } from 'node:http';
import type { RpcId } from './json-rpc.js';

const SSE_HEAD = Buffer.from('event: message\ndata: ', 'utf8');
const SSE_TAIL = Buffer.from('\n\n', 'utf8');

/** `body` (one JSON-RPC message) as one SSE event. */
export function oneEvent(body: string | Buffer): string | Buffer {
  return typeof body === 'string'
    ? `event: message\ndata: ${body}\n\n`
    : Buffer.concat([SSE_HEAD, body, SSE_TAIL]);
}

/**
 * A check of Accept values: true when the client accepts SSE but not JSON. Everyone else
 * gets a plain answer as JSON: no stream and no event store (an SSE answer with an event
 * store is far slower, docs/benchmarks.md). A client sends the same Accept on every POST,
 * so the last verdict is remembered.
 */
export function createEventStreamOnlyCheck(): (accept: string | undefined) => boolean {
  let last: { value: string | undefined; eventStreamOnly: boolean } = {
    value: undefined,
    eventStreamOnly: false,
  };
  return (accept) => {
    if (accept === undefined) return false;
    if (accept === last.value) return last.eventStreamOnly;
    const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
    const json = types.some(
      (type) => type === 'application/json' || type === 'application/*' || type === '*/*',
    );
    const eventStreamOnly = !json && types.includes('text/event-stream');
    last = { value: accept, eventStreamOnly };
    return eventStreamOnly;
  };
}

/** The streamed answer of one request. */
export interface CallStream {
  /** True once the SSE answer started (its head is written). */
  readonly started: boolean;
  /**
   * Writes `message` as one event, starting the stream first. False when the client is
   * gone or the answer already ended (nothing written). With `droppable`, the message is
   * also dropped (false) while more than the buffer limit waits unsent: a progress
   * notification may be lost, a request or the response may not.
   */
  send(message: object, droppable?: boolean): boolean;
  /** Ends a started stream with the request's JSON-RPC response (serialized) as last event. */
  end(response: string | Buffer): void;
  /**
   * The request was served: a stream that has not started never will (its answer goes out
   * as plain JSON), so a message arriving late is dropped instead of racing that answer.
   */
  seal(): void;
}

/** Options of {@link createCallStream}. */
export interface CallStreamOptions {
  /** Called once, right before the head is written: the edge hands the response over. */
  readonly takeOver: () => void;
  /** Interval of keep-alive comments on a started stream; 0 disables them. */
  readonly keepAliveMs: number;
  /** Unsent bytes past which droppable messages are dropped. */
  readonly bufferLimit: number;
}

/** A not yet started streamed answer on `res`. */
export function createCallStream(res: ServerResponse, options: CallStreamOptions): CallStream {
  let started = false;
  let ended = false;
  let keepAlive: NodeJS.Timeout | undefined;
  const gone = (): boolean => ended || res.writableEnded || res.destroyed;
  const stopKeepAlive = (): void => {
    if (keepAlive !== undefined) clearInterval(keepAlive);
    keepAlive = undefined;
  };
  const start = (): void => {
    started = true;
    options.takeOver();
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
    });
    res.on('close', stopKeepAlive);
    if (options.keepAliveMs > 0) {
      keepAlive = setInterval(() => {
        if (!gone()) res.write(': keep-alive\n\n');
      }, options.keepAliveMs);
      keepAlive.unref();
    }
  };
  return {
    get started() {
      return started;
    },
    send(message, droppable = false) {
      if (gone()) return false;
      if (droppable && started && res.writableLength > options.bufferLimit) return false;
      if (!started) start();
      res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
      return true;
    },
    seal() {
      if (!started) ended = true;
    },
    end(response) {
      if (ended) return;
      ended = true;
      stopKeepAlive();
      if (res.writableEnded || res.destroyed) return;
      res.end(oneEvent(response));
    },
  };
}

/** A `notifications/progress` for the caller's `progressToken`: only the known members. */
export function progressNotification(
  progressToken: RpcId,
  progress: { progress: unknown; total?: unknown; message?: unknown },
  maxMessageLength: number,
): object | undefined {
  if (typeof progress.progress !== 'number' || !Number.isFinite(progress.progress)) {
    return undefined;
  }
  const params: { progressToken: RpcId; progress: number; total?: number; message?: string } = {
    progressToken,
    progress: progress.progress,
  };
  if (typeof progress.total === 'number' && Number.isFinite(progress.total)) {
    params.total = progress.total;
  }
  if (typeof progress.message === 'string') {
    params.message = progress.message.slice(0, maxMessageLength);
  }
  return { jsonrpc: '2.0', method: 'notifications/progress', params };
}
