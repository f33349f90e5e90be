/**
 * One HTTP exchange over a bare TCP socket, for requests no HTTP client would send
 * (broken request lines, duplicate lengths, oversized headers) and for headers sent
 * without their body. Resolves with everything the server wrote before it closed.
 */
import { connect } from 'node:net';

/** What the server wrote, and the socket error that ended the exchange, if any. */
export interface RawExchange {
  readonly statusLine: string;
  readonly text: string;
  readonly error?: string;
}

/** Writes `data` to 127.0.0.1:`port`, half-closes unless `keepOpen`, reads until close. */
export function exchange(
  port: number,
  data: string | Buffer,
  { keepOpen = false, timeoutMs = 15_000 } = {},
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ statusLine: text.split('\r\n')[0] ?? '', text, ...(error && { error }) });
    };
    const timer = setTimeout(() => {
      error = 'timeout';
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // With the request body held back the server may keep the socket open: stop reading
      // once the answer's head and its Content-Length bytes arrived.
      if (keepOpen && answerComplete(Buffer.concat(chunks).toString('latin1'))) socket.destroy();
    });
    socket.on('error', (failure: NodeJS.ErrnoException) => {
      error = failure.code ?? failure.message;
    });
    socket.on('close', finish);
    if (keepOpen) socket.write(data);
    else socket.end(data);
  });
}

function answerComplete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
  return length !== null && Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length[1]);
}
