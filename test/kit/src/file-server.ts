/**
 * A static file server on 127.0.0.1 for tests that download: answers each path it was given
 * (`/agent.tar.gz`, `/ext/versions.json`) with its bytes, anything else with 404, and
 * records every request path. Files can be added or replaced while it runs.
 *
 * @example
 * const files = await startFileServer({ '/agent.tar.gz': tgz });
 * // install from `${files.url}/agent.tar.gz`
 * await files.close();
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running file server. */
export interface FileServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Every request path, in arrival order. */
  readonly requests: string[];
  /** Serves `content` at `path` (starting with `/`) from now on. */
  set(path: string, content: Buffer | string): void;
  close(): Promise<void>;
}

/** Starts a file server on a free loopback port, serving `files` by path. */
export async function startFileServer(
  files: Readonly<Record<string, Buffer | string>> = {},
): Promise<FileServer> {
  const served = new Map<string, Buffer>();
  const set = (path: string, content: Buffer | string) =>
    served.set(path, Buffer.isBuffer(content) ? content : Buffer.from(content));
  for (const [path, content] of Object.entries(files)) set(path, content);
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    requests.push(path);
    const body = request.method === 'GET' ? served.get(path) : undefined;
    if (!body) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response
      .writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(body.length),
      })
      .end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    set,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
