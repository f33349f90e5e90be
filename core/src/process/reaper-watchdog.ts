/**
 * Source of the reaper watchdog: a tiny plain-JavaScript program run as
 * `node -e <source> <graceMs>` in its own process group. It reads lines `+<pgid>` and
 * `-<pgid>` on stdin; when stdin closes (the daemon died or let go) it sends SIGTERM to
 * every registered group, SIGKILL to those left after the grace period, and exits.
 *
 * It is a string rather than a file so that it runs the same from `src` (tests) and from
 * `dist` (tsc copies no `.mjs`), and it loads no module at all so it starts fast.
 */

/** The watchdog program (CommonJS, no imports). */
export const WATCHDOG_SOURCE = `'use strict';
const graceMs = Number(process.argv[1]) > 0 ? Number(process.argv[1]) : 2000;
const groups = new Set();
let pending = '';
let reaping = false;
function alive(pgid) {
  try { process.kill(-pgid, 0); return true; } catch (error) { return error.code === 'EPERM'; }
}
function reap() {
  if (reaping) return;
  reaping = true;
  for (const pgid of groups) { try { process.kill(-pgid, 'SIGTERM'); } catch {} }
  const deadline = Date.now() + graceMs;
  const tick = () => {
    const left = [...groups].filter(alive);
    if (left.length === 0 || Date.now() >= deadline) {
      for (const pgid of left) { try { process.kill(-pgid, 'SIGKILL'); } catch {} }
      process.exit(0);
    }
    setTimeout(tick, 20);
  };
  tick();
}
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf('\\n')) >= 0) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    const pgid = Number(line.slice(1));
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    if (line[0] === '+') groups.add(pgid);
    else if (line[0] === '-') groups.delete(pgid);
  }
});
process.stdin.on('end', reap);
process.stdin.on('close', reap);
process.stdin.on('error', reap);
process.on('SIGTERM', reap);
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
`;
