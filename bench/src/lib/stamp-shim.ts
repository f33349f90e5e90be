/**
 * A timing shim between a client and an agent it starts over stdio, for the turn bench:
 * `node stamp-shim.js <stamp-file> <agent> [args...]` runs the agent, copies stdin to it and
 * its stdout back, and appends to `<stamp-file>` one line `<in|out> <ns> <marker>` per
 * bench marker (`[[p:...]]`, `[[e:...]]`) in each line that passes, stamped with the
 * system-wide monotonic clock (`process.hrtime`) when the line's last chunk arrived. The
 * copy is written before the stamp, so the stamp file costs the stream nothing. Both ways a
 * turn is driven (the daemon and the bench directly) run the agent behind this shim, so its
 * own hop is in both.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [file, command, ...args] = process.argv.slice(2);
if (!file || !command) {
  process.stderr.write('usage: stamp-shim <stamp-file> <agent> [args...]\n');
  process.exit(2);
}
const MARKER = /\[\[[pe]:[\w:-]+\]\]/g;

/** Scans the lines of one direction for markers; the stamp is the time of the chunk ending a line. */
function scanner(direction: 'in' | 'out'): (chunk: Buffer, at: bigint) => void {
  let carry = '';
  return (chunk, at) => {
    // Markers are ASCII: latin1 never splits a character across chunks.
    const lines = (carry + chunk.toString('latin1')).split('\n');
    carry = lines.pop() ?? '';
    let stamps = '';
    for (const line of lines) {
      for (const match of line.matchAll(MARKER)) stamps += `${direction} ${at} ${match[0]}\n`;
    }
    if (stamps) appendFileSync(file!, stamps);
  };
}

const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const scanIn = scanner('in');
const scanOut = scanner('out');
child.stdin.on('error', () => {});
process.stdin.on('data', (chunk: Buffer) => {
  const at = process.hrtime.bigint();
  child.stdin.write(chunk);
  scanIn(chunk, at);
});
process.stdin.on('end', () => child.stdin.end());
child.stdout.on('data', (chunk: Buffer) => {
  const at = process.hrtime.bigint();
  process.stdout.write(chunk);
  scanOut(chunk, at);
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
  process.stdout.end();
  process.stdin.destroy();
});
