/**
 * `subscriptions/listen` listeners (MCP 2026-07-28) over raw `node:http`: opens N SSE
 * streams on the `connector` server and stamps each `notifications/tools/list_changed`
 * frame with the monotonic clock (`process.hrtime.bigint()`) the moment its bytes arrive.
 */
import { Agent, type ClientRequest, request } from 'node:http';
import type { Endpoint } from './connection.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench-listener', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Opens one stream; `onChanged(atNs)` runs per list_changed frame. Resolves once acknowledged. */
function openStream(
  agent: Agent,
  target: Endpoint,
  id: string,
  onChanged: (at: bigint) => void,
): Promise<ClientRequest> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE },
  });
  return new Promise((resolve, reject) => {
    const req = request(target.url, {
      method: 'POST',
      agent,
      headers: {
        ...target.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
    });
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`subscriptions/listen answered HTTP ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const at = process.hrtime.bigint();
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          if (frame.includes('notifications/subscriptions/acknowledged')) resolve(req);
          else if (frame.includes('notifications/tools/list_changed')) onChanged(at);
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens `count` listeners on `target`; `onChanged(index, atNs)` per frame. Returns `close()`. */
export async function openListeners(
  target: Endpoint,
  count: number,
  onChanged: (index: number, at: bigint) => void,
): Promise<{ close(): void }> {
  const agent = new Agent({ keepAlive: true, maxSockets: count + 1 });
  const requests = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      openStream(agent, target, `listen-${index}`, (at) => onChanged(index, at)),
    ),
  );
  return {
    close() {
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
}
