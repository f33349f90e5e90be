/**
 * A lean client of the daemon's turn API for the turn bench: `POST /v1/sessions/{id}/turns`
 * over `node:http` (one keep-alive agent, no fetch), the `text/event-stream` answer read as
 * it comes; each `text` event's markers are stamped (monotonic clock) when the event was
 * parsed. Resolves with the send time once the `end` event came; an `error` event or an
 * `end` other than `end_turn` fails the turn.
 */
import { Agent, request } from 'node:http';
import { type Seen, see } from './turn-stamps.js';

const agent = new Agent({ keepAlive: true });

/** Runs one turn of session `id` on the daemon at `controlUrl`. */
export function streamedTurn(
  controlUrl: string,
  token: string,
  id: string,
  text: string,
  received: Seen,
): Promise<bigint> {
  const url = new URL(`/v1/sessions/${id}/turns`, controlUrl);
  const body = JSON.stringify({ prompt: text });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          accept: 'text/event-stream',
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          let answer = '';
          res.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
          res.on('end', () => reject(new Error(`turn answered ${res.statusCode}: ${answer}`)));
          return;
        }
        let buffer = '';
        let end: string | undefined;
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString('utf8');
          for (let cut = buffer.indexOf('\n\n'); cut !== -1; cut = buffer.indexOf('\n\n')) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = frame.split('\n').find((line) => line.startsWith('data: '));
            if (!data) continue;
            const event = JSON.parse(data.slice(6)) as { type: string; [key: string]: unknown };
            const at = process.hrtime.bigint();
            if (event.type === 'text') see(received, String(event.text), at);
            else if (event.type === 'end') end = String(event.stopReason);
            else if (event.type === 'error') end = `error ${event.code}: ${event.message}`;
          }
        });
        res.on('end', () =>
          end === 'end_turn'
            ? resolve(sentAt)
            : reject(new Error(`turn of ${id} ended with ${end ?? 'no end event'}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const sentAt = process.hrtime.bigint();
    req.end(body);
  });
}
