/**
 * The floor of the daemon's relay, as a bench child: a bare Node process that reads lines on
 * its stdin and writes each as an SSE `text` frame to the one client of its loopback HTTP
 * server, with no parsing, no checks and no normalization. Reports `{ url }` over IPC. What
 * a turn through any out-of-process relay pays on this machine for the extra process and
 * the HTTP hop, beside what the daemon pays.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

let client: ServerResponse | undefined;
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  res.flushHeaders();
  client = res;
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
});
createInterface({ input: process.stdin }).on('line', (line) => {
  client?.write(`event: text\ndata: ${JSON.stringify({ type: 'text', text: line })}\n\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
