/**
 * The floor under a daemon cold start: `count` stdio fixture servers spawned at once
 * without any daemon, timed until every one printed its `ready` line (process start plus
 * the MCP SDK import, no MCP handshake). On 2 cores this is mostly CPU contention. Each is
 * spawned like the daemon's supervisor does (own session via `detached`, empty env): with
 * Linux CFS autogroup every session is scheduled as one unit, so a non-detached floor would
 * get far less CPU than the daemon's upstreams on a busy machine.
 */
import { STDIO_SERVER } from './paths.js';
import { type Group, spawnGroup } from './processes.js';

/** Milliseconds until all `count` fixture servers with `tools` tools are ready; stops them. */
export async function parallelFixtureStartMs(
  count: number,
  tools: number,
  { timeoutMs = 120_000 } = {},
): Promise<number> {
  const groups: Group[] = [];
  const started = performance.now();
  try {
    const ready: Promise<void>[] = [];
    for (let i = 0; i < count; i += 1) {
      const group = spawnGroup(process.execPath, [STDIO_SERVER, '--tools', String(tools)], {
        stdin: 'pipe',
        wholeEnv: true,
      });
      groups.push(group);
      ready.push(
        new Promise((resolve, reject) => {
          let stderr = '';
          group.child.stderr?.on('data', (chunk: Buffer) => {
            stderr += chunk.toString('utf8');
            if (/^ready$/m.test(stderr)) resolve();
          });
          group.child.once('error', reject);
          group.child.once('exit', (code, signal) =>
            reject(new Error(`fixture server exited (${signal ?? code}): ${stderr.slice(-500)}`)),
          );
        }),
      );
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
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
    await Promise.all(groups.map((group) => group.stop()));
  }
}
