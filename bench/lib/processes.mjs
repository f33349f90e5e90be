/**
 * Child processes of the benches: each runs in its own process group (so a kill reaches
 * the whole tree), with HOME and XDG dirs in a temp dir, and is killed when the bench
 * ends, fails or the bench process exits. Also free-port and readiness helpers.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Stop functions of every group still running, for the exit handler. */
const running = new Set();
/** Temp homes not yet removed, for the exit handler. */
const homes = new Set();
process.once('exit', () => {
  for (const child of running) child.killNow();
  for (const remove of homes) remove();
});
// Children lead their own groups, so a Ctrl-C in the terminal does not reach them.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));
}

/** A temp dir for HOME/XDG_* of one child; removed by `remove()` or at exit. */
export function tempHome(prefix = 'tutti-peers-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => {
    homes.delete(remove);
    rmSync(dir, { recursive: true, force: true });
  };
  homes.add(remove);
  return {
    dir,
    env: {
      HOME: dir,
      XDG_CONFIG_HOME: dir,
      XDG_DATA_HOME: dir,
      XDG_CACHE_HOME: dir,
      XDG_STATE_HOME: dir,
    },
    remove,
  };
}

function alive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Spawns `command args` as the leader of a new process group, with only PATH from this
 * process plus `env`. `ipc: true` opens an IPC channel (node children only); `stdin: 'pipe'`
 * keeps stdin writable.
 */
export function spawnGroup(command, args, { env = {}, cwd, ipc = false, stdin = 'ignore' } = {}) {
  const home = tempHome();
  const child = spawn(command, args, {
    cwd,
    detached: true,
    env: { PATH: process.env.PATH ?? '', ...home.env, ...env },
    stdio: ipc ? [stdin, 'pipe', 'pipe', 'ipc'] : [stdin, 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  child.stdout.resume();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const entry = {
    child,
    stderrTail: () => stderr,
    killNow() {
      if (child.pid !== undefined && alive(child.pid)) process.kill(-child.pid, 'SIGKILL');
      home.remove();
    },
    /** SIGTERM to the group, SIGKILL after `graceMs`, then waits until the group is gone. */
    async stop(graceMs = 3000) {
      running.delete(entry);
      const pid = child.pid;
      if (pid !== undefined && alive(pid)) {
        process.kill(-pid, 'SIGTERM');
        const deadline = Date.now() + graceMs;
        while (alive(pid) && Date.now() < deadline) await sleep(20);
        if (alive(pid)) process.kill(-pid, 'SIGKILL');
        while (alive(pid) && Date.now() < deadline + 2000) await sleep(20);
      }
      if (child.exitCode === null && child.signalCode === null) await exited;
      home.remove();
    },
  };
  running.add(entry);
  return entry;
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once 127.0.0.1:`port` accepts connections; throws after `timeoutMs`. */
export async function waitForPort(port, group, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (group.child.exitCode !== null || group.child.signalCode !== null) {
      throw new Error(`process exited before listening on ${port}: ${group.stderrTail()}`);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms: ${group.stderrTail()}`,
      );
    }
    await sleep(50);
  }
}

/** The first IPC message of a child (its ready report); throws if it exits first. */
export function firstMessage(group, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready message after ${timeoutMs} ms: ${group.stderrTail()}`)),
      timeoutMs,
    );
    group.child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message);
    });
    group.child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`child exited (${signal ?? code}) before it was ready: ${group.stderrTail()}`),
      );
    });
  });
}
