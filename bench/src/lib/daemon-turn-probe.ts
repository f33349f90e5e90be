/**
 * Preload (`node --import`) of the turn bench's `tuttid`: it stamps, on the system-wide
 * monotonic clock, where the turn bench's markers (`[[p:...]]`, `[[e:...]]`, see
 * `pacedScript` of `@tutti/test-kit/scripted-model`) pass through the daemon process,
 * without touching product code:
 *
 * - `req`: a turn request's body chunk holding the prompt marker was read (HTTP);
 * - `agent-in`: the daemon hands the prompt to the agent's stdin (`write` called);
 * - `agent-out`: a chunk of the agent's stdout holding a delta marker reached the daemon;
 * - `sse`: the daemon hands the SSE frame of that delta's `text` event to the socket.
 *
 * Stamps are taken as the write is called, so a preemption inside the write call (the
 * machine is shared) does not land in the figure.
 *
 * Stamps are kept in memory and appended to `$TUTTI_BENCH_PROBE_FILE` off the hot path
 * (after each turn's `end` frame, every 100 ms, and at exit). Scanning costs the daemon a
 * regex over each child stdout chunk and each SSE frame: a few microseconds.
 */
import { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';

const file = process.env.TUTTI_BENCH_PROBE_FILE;
const MARKER = /\[\[([pe]):[\w:-]+\]\]/g;
let pending = '';

function stamp(kind: string, chunk: unknown, only: 'p' | 'e'): void {
  if (chunk === null || chunk === undefined) return;
  const text =
    typeof chunk === 'string'
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1')
        : '';
  if (!text.includes('[[')) return;
  const at = process.hrtime.bigint();
  for (const match of text.matchAll(MARKER)) {
    if (match[1] === only) pending += `${kind} ${at} ${match[0]}\n`;
  }
}

function flush(): void {
  if (!pending || !file) return;
  appendFileSync(file, pending);
  pending = '';
}

if (file) {
  setInterval(flush, 100).unref();
  process.on('exit', flush);

  // Node's `spawn()` calls `ChildProcess.prototype.spawn` (not in the typings).
  const proto = ChildProcess.prototype as unknown as { spawn(...args: unknown[]): unknown };
  const spawn = proto.spawn;
  proto.spawn = function probedSpawn(this: ChildProcess, ...args: unknown[]) {
    const result = spawn.apply(this, args);
    const { stdout, stdin } = this;
    if (stdout) {
      const push = stdout.push;
      stdout.push = function probedPush(chunk: unknown, encoding?: BufferEncoding) {
        stamp('agent-out', chunk, 'e');
        return push.call(this, chunk, encoding);
      };
    }
    if (stdin) {
      const write = stdin.write as (...rest: unknown[]) => boolean;
      stdin.write = function probedWrite(this: unknown, chunk: unknown, ...rest: unknown[]) {
        stamp('agent-in', chunk, 'p');
        return write.call(this, chunk, ...rest);
      } as typeof stdin.write;
    }
    return result;
  };

  const push = IncomingMessage.prototype.push;
  IncomingMessage.prototype.push = function probedBody(chunk: unknown, encoding?: BufferEncoding) {
    stamp('req', chunk, 'p');
    return push.call(this, chunk, encoding);
  };

  const write = ServerResponse.prototype.write as (...rest: unknown[]) => boolean;
  ServerResponse.prototype.write = function probedWrite(
    this: ServerResponse,
    chunk: unknown,
    ...rest: unknown[]
  ) {
    if (typeof chunk === 'string' && chunk.startsWith('event: ')) {
      if (chunk.startsWith('event: text')) stamp('sse', chunk, 'e');
      else if (chunk.startsWith('event: end')) setImmediate(flush);
    }
    return write.call(this, chunk, ...rest);
  } as typeof ServerResponse.prototype.write;
}
