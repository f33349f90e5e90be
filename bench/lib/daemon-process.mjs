/**
 * A real `tuttid --json` process for the benches: spawned with HOME/XDG_* in a temp dir,
 * timed from spawn to its ready and settled lines, measured through `/proc` (its own VmRSS and the
 * memory of the upstream processes it started), and stopped with SIGTERM (SIGKILL after a
 * grace period), including any upstream left behind. Linux only (reads `/proc`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

/** The `tuttid` bin of the CLI package (runs `cli/dist`). */
export const TUTTID = fileURLToPath(new URL('../../cli/bin/tuttid.js', import.meta.url));

/** Daemons still running, killed if the bench process exits without stopping them. */
const running = new Set();
process.once('exit', () => {
  for (const daemon of running) daemon.killNow();
});

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** A field of `/proc/<pid>/status` in KiB (e.g. `VmRSS`), or undefined when gone. */
export function procStatusKiB(pid, field) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Proportional set size of `pid` in KiB (shared pages split between their users). */
export function pssKiB(pid) {
  try {
    const match = /^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Every live process whose parent chain leads to `root` (not `root` itself). */
export function descendants(root) {
  const parents = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) follows the parenthesised command name, which may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(name), ppid);
    } catch {
      // The process ended while we listed it.
    }
  }
  const found = [];
  const wanted = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (wanted.has(ppid) && !wanted.has(pid)) {
        wanted.add(pid);
        found.push(pid);
        grew = true;
      }
    }
  }
  return found;
}

/**
 * Spawns `tuttid --home <home> --json --no-demo` and resolves once it printed its settled
 * line (every connector made its first attempt; `until: 'ready'`: its ready line, printed
 * as soon as its servers listen): `{ pid, ready, readyMs, settled, settledMs, stop() }`.
 * Rejects (after killing it) when it exits first or does not get there within `timeoutMs`.
 */
export async function startTuttid(
  home,
  { timeoutMs = 120_000, extraArgs = [], until = 'settled' } = {},
) {
  const userHome = mkdtempSync(join(tmpdir(), 'tutti-bench-user-'));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [TUTTID, '--home', home, '--json', '--no-demo', ...extraArgs],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: userHome,
        XDG_CONFIG_HOME: userHome,
        XDG_DATA_HOME: userHome,
        XDG_CACHE_HOME: userHome,
        XDG_STATE_HOME: userHome,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  /** Upstream pids seen while running, so none outlives the bench. */
  const upstreams = new Set();
  const daemon = {
    pid: child.pid,
    ready: undefined,
    readyMs: undefined,
    settled: undefined,
    settledMs: undefined,
    /** Pids of the processes this daemon started (remembered for cleanup). */
    children() {
      const pids = descendants(child.pid);
      for (const pid of pids) upstreams.add(pid);
      return pids;
    },
    killNow() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const pid of upstreams) if (alive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(userHome, { recursive: true, force: true });
    },
    /** SIGTERM, SIGKILL after `graceMs`; then kills any upstream left and removes temp dirs. */
    async stop(graceMs = 10_000) {
      running.delete(daemon);
      if (child.exitCode === null && child.signalCode === null) {
        daemon.children();
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      for (const pid of upstreams) {
        for (let i = 0; i < 100 && alive(pid); i += 1) await sleep(20);
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
      rmSync(userHome, { recursive: true, force: true });
    },
  };
  running.add(daemon);
  try {
    await new Promise((resolve, reject) => {
      let buffer = '';
      const timer = setTimeout(
        () => reject(new Error(`tuttid not ${until} after ${timeoutMs} ms: ${stderr}`)),
        timeoutMs,
      );
      child.stdout.on('data', (chunk) => {
        buffer += chunk;
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          let event;
          try {
            event = JSON.parse(line);
          } catch {
            continue;
          }
          if (event?.event === 'ready') {
            daemon.readyMs = performance.now() - started;
            daemon.ready = event;
          } else if (event?.event === 'settled') {
            daemon.settledMs = performance.now() - started;
            daemon.settled = event;
          } else {
            continue;
          }
          if (event.event === until) {
            clearTimeout(timer);
            resolve(event);
          }
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`tuttid exited (${signal ?? code}) before ${until}: ${stderr}`));
      });
    });
  } catch (error) {
    await daemon.stop(1000);
    throw error;
  }
  return daemon;
}
