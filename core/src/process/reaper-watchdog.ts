/**
 * Source of the reaper watchdog: a tiny plain-JavaScript program run as
 * `node -e <source> <graceMs> <scopePrefix>` in its own process group. It reads lines
 * `+<pgid>` and `-<pgid>` on stdin; when stdin closes (the daemon died or let go) it sends
 * SIGTERM to every registered group and, where `/proc` exists, to every process whose
 * environment holds `TUTTI_PROCESS_SCOPE=<scopePrefix>.` and to every descendant of what
 * it ends; SIGKILL to what is left after the grace period; then it exits.
 *
 * It is a string rather than a file so that it runs the same from `src` (tests) and from
 * `dist` (tsc copies no `.mjs`), and it loads no module at all so it starts fast.
 */

/** The watchdog program (CommonJS, no imports). */
export const WATCHDOG_SOURCE = `'use strict';
const graceMs = Number(process.argv[1]) > 0 ? Number(process.argv[1]) : 2000;
const scopePrefix = process.argv[2] || '';
const fs = require('node:fs');
const groups = new Set();
function table() {
  const out = [];
  let names = [];
  try { names = fs.readdirSync('/proc'); } catch { return out; }
  for (const name of names) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync('/proc/' + name + '/stat', 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(name), state: f[0], ppid: Number(f[1]), pgid: Number(f[2]) });
    } catch {}
  }
  return out;
}
function marked(pid) {
  if (!scopePrefix) return false;
  try {
    const environ = fs.readFileSync('/proc/' + pid + '/environ');
    return environ.indexOf('TUTTI_PROCESS_SCOPE=' + scopePrefix + '.') >= 0;
  } catch { return false; }
}
/** Pids outside the registered groups that belong to their trees (left them, or marked). */
function outsiders() {
  const all = table();
  const byParent = new Map();
  for (const p of all) { if (!byParent.has(p.ppid)) byParent.set(p.ppid, []); byParent.get(p.ppid).push(p); }
  const queue = all.filter((p) => groups.has(p.pgid) || (p.pid !== process.pid && marked(p.pid)));
  const seen = new Set();
  const out = [];
  while (queue.length > 0) {
    const p = queue.pop();
    if (seen.has(p.pid)) continue;
    seen.add(p.pid);
    if (!groups.has(p.pgid) && p.state !== 'Z' && p.state !== 'X' && p.pid !== process.pid) out.push(p.pid);
    for (const c of byParent.get(p.pid) || []) queue.push(c);
  }
  return out;
}
let pending = '';
let reaping = false;
function alive(pgid) {
  try { process.kill(-pgid, 0); return true; } catch (error) { return error.code === 'EPERM'; }
}
function reap() {
  if (reaping) return;
  reaping = true;
  const strays = new Set(outsiders());
  for (const pid of strays) { try { process.kill(pid, 'SIGTERM'); } catch {} }
  for (const pgid of groups) { try { process.kill(-pgid, 'SIGTERM'); } catch {} }
  const deadline = Date.now() + graceMs;
  const tick = () => {
    const left = [...groups].filter(alive);
    for (const pid of outsiders()) strays.add(pid);
    const live = new Set(table().filter((p) => p.state !== 'Z' && p.state !== 'X').map((p) => p.pid));
    const running = [...strays].filter((pid) => live.has(pid));
    if ((left.length === 0 && running.length === 0) || Date.now() >= deadline) {
      for (const pgid of left) { try { process.kill(-pgid, 'SIGKILL'); } catch {} }
      for (const pid of running) { try { process.kill(pid, 'SIGKILL'); } catch {} }
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
