/**
 * The relay floor of the turn bench: lines written to `sse-relay-child.js` (a bare Node
 * process that turns each stdin line into an SSE frame) at the paced model's cadence, each
 * timed from the write here to its frame parsed here, on the monotonic clock.
 */
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { firstMessage, spawnGroup } from './processes.js';
import { msBetween, type Seen, see } from './turn-stamps.js';

const CHILD = fileURLToPath(new URL('./sse-relay-child.js', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `bursts` bursts of `lines` lines `gapMs` apart through a fresh relay; the ms of each line. */
export async function relayFloor(bursts: number, lines: number, gapMs: number): Promise<number[]> {
  const group = spawnGroup(process.execPath, [CHILD], { ipc: true, stdin: 'pipe' });
  try {
    const { url } = await firstMessage<{ url: string }>(group);
    const received: Seen = new Map();
    const req = request(url, (res) => {
      let buffer = '';
      res.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        for (let cut = buffer.indexOf('\n\n'); cut !== -1; cut = buffer.indexOf('\n\n')) {
          const data = buffer
            .slice(0, cut)
            .split('\n')
            .find((line) => line.startsWith('data: '));
          buffer = buffer.slice(cut + 2);
          const at = process.hrtime.bigint();
          if (data) see(received, String((JSON.parse(data.slice(6)) as { text: string }).text), at);
        }
      });
    });
    const connected = new Promise<void>((resolve) => req.once('response', () => resolve()));
    req.end();
    await connected;
    const stdin = group.child.stdin;
    if (!stdin) throw new Error('the relay child has no stdin');
    const written = new Map<string, bigint>();
    for (let burst = 0; burst < bursts; burst += 1) {
      for (let k = 0; k < lines; k += 1) {
        if (k > 0) await sleep(gapMs);
        const marker = `[[e:f${burst}:${k}]]`;
        written.set(marker, process.hrtime.bigint());
        stdin.write(`${marker}\n`);
      }
      await sleep(50);
    }
    for (let i = 0; received.size < written.size && i < 200; i += 1) await sleep(10);
    req.destroy();
    return [...written].map(([marker, at]) => {
      const got = received.get(marker);
      if (got === undefined) throw new Error(`the relay floor lost ${marker}`);
      return msBetween(at, got);
    });
  } finally {
    await group.stop();
  }
}
