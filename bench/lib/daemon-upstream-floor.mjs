/**
 * The floor under a daemon cold start: `count` stdio fixture servers spawned at once
 * without any daemon, timed until every one printed its `ready` line (process start plus
 * the MCP SDK import, no MCP handshake). On 2 cores this is mostly CPU contention. Each is
 * spawned like the daemon's supervisor does (own session via `detached`, empty env): with
 * Linux CFS autogroup every session is scheduled as one unit, so a non-detached floor would
 * get far less CPU than the daemon's upstreams on a busy machine.
 */
import { spawn } from 'node:child_process';
import { STDIO_SERVER } from './daemon-home.mjs';

/** Milliseconds until all `count` fixture servers with `tools` tools are ready; kills them. */
export async function parallelFixtureStartMs(count, tools, { timeoutMs = 120_000 } = {}) {
  const children = [];
  const started = performance.now();
  try {
    const ready = [];
    for (let i = 0; i < count; i += 1) {
      const child = spawn(process.execPath, [STDIO_SERVER, '--tools', String(tools)], {
        detached: true,
        env: {},
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      children.push(child);
      ready.push(
        new Promise((resolve, reject) => {
          let stderr = '';
          child.stderr.on('data', (chunk) => {
            stderr += chunk;
            if (/^ready$/m.test(stderr)) resolve();
          });
          child.once('error', reject);
          child.once('exit', (code, signal) =>
            reject(new Error(`fixture server exited (${signal ?? code}): ${stderr.slice(-500)}`)),
          );
        }),
      );
    }
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`fixtures not ready in ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([Promise.all(ready), timeout]);
    } finally {
      clearTimeout(timer);
    }
    return performance.now() - started;
  } finally {
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(-child.pid, 'SIGKILL');
        return exited;
      }),
    );
  }
}
