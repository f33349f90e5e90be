/**
 * A small HTTP client for hostile requests: node:http over a keep-alive agent, any method,
 * path, header set (Host included or left out) and body bytes, with a per-request bound.
 * It never throws: a reset, a hang or a client-side refusal comes back as `failure`.
 * A `text/event-stream` answer is read up to its first event, then the stream is dropped.
 */
import { Agent, request as httpRequest } from 'node:http';

/** One request to send. */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  /** Headers as sent; a `host` entry replaces the default, `host: undefined` omits it. */
  readonly headers: Record<string, string | undefined>;
  readonly body?: string | Buffer;
}

/** What came back. */
export interface RawAnswer {
  readonly status?: number;
  readonly contentType?: string;
  readonly body: string;
  /** Why no full answer came: 'timeout', 'client' (refused before sending) or an error code. */
  readonly failure?: string;
}

/** A keep-alive agent with at most `sockets` connections. */
export function keepAliveAgent(sockets = 16): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets });
}

/** Sends `spec` to 127.0.0.1:`port`; resolves with the answer within `timeoutMs`. */
export function send(
  port: number,
  spec: RawRequest,
  agent: Agent,
  timeoutMs = 30_000,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: RawAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const omitHost = 'host' in spec.headers && spec.headers.host === undefined;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(spec.headers)) {
      if (value !== undefined) headers[name] = value;
    }
    if (spec.body !== undefined) headers['content-length'] = String(Buffer.byteLength(spec.body));
    let req: ReturnType<typeof httpRequest>;
    try {
      req = httpRequest({
        host: '127.0.0.1',
        port,
        method: spec.method,
        path: spec.path,
        headers,
        agent,
        setHost: !omitHost && !('host' in headers),
      });
    } catch (error) {
      resolve({ body: '', failure: `client: ${(error as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      req.destroy();
      done({ body: '', failure: 'timeout' });
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      done({ body: '', failure: error.code ?? error.message });
    });
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      const contentType = response.headers['content-type'];
      const stream = contentType?.startsWith('text/event-stream') === true;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (stream && Buffer.concat(chunks).includes('\n\n')) {
          done({
            status: response.statusCode,
            contentType,
            body: Buffer.concat(chunks).toString(),
          });
          req.destroy();
        }
      });
      response.on('end', () =>
        done({ status: response.statusCode, contentType, body: Buffer.concat(chunks).toString() }),
      );
      response.on('error', (error: NodeJS.ErrnoException) =>
        done({ status: response.statusCode, body: '', failure: error.code ?? error.message }),
      );
    });
    req.end(spec.body);
  });
}

/** Runs `task` over `items` with at most `limit` at a time; results keep the item order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
