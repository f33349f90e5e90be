/**
 * The floor under a daemon cold start: `count` stdio fixture servers spawned at once
 * without any daemon, timed until every one printed its `ready` line (process start plus
 * the MCP SDK import, no MCP handshake), or with `listed` until each answered `initialize`
 * and `tools/list` from a bare JSON-RPC client (the work any MCP host has the servers do
 * before it can serve their tools). On 2 cores this is mostly CPU contention. Each is
 * spawned like the daemon's supervisor does (own session via `detached`, empty env): with
 * Linux CFS autogroup every session is scheduled as one unit, so a non-detached floor would
 * get far less CPU than the daemon's upstreams on a busy machine.
 */
import { STDIO_SERVER } from '@tutti/test-kit';
import { cpuMs } from './daemon-process.js';
import { type Group, spawnGroup } from './processes.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench-floor', version: '1.0.0' },
  },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

/** Resolves once the server on `group` answered `initialize` and then `tools/list`. */
function handshake(group: Group): Promise<void> {
  const { stdin, stdout } = group.child;
  const send = (message: object) => stdin?.write(`${JSON.stringify(message)}\n`);
  return new Promise((resolve, reject) => {
    group.child.once('error', reject);
    group.child.once('exit', (code, signal) =>
      reject(new Error(`fixture server exited (${signal ?? code}) before it listed its tools`)),
    );
    let buffer = '';
    stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let id: unknown;
        try {
          ({ id } = JSON.parse(line) as { id?: unknown });
        } catch {
          reject(new Error(`fixture server wrote a line that is not JSON: ${line.slice(0, 200)}`));
          return;
        }
        if (id === 0) {
          send(INITIALIZED);
          send(TOOLS_LIST);
        } else if (id === 1) {
          resolve();
        }
      }
    });
    send(INITIALIZE);
  });
}

/** How long a floor took, and the CPU its servers used until then. */
export interface FloorRun {
  readonly ms: number;
  readonly cpuMs: number;
}

/**
 * Milliseconds until all `count` fixture servers with `tools` tools are ready (or, with
 * `listed`, have answered `initialize` and `tools/list`), and their CPU until then; stops
 * them.
 */
export async function parallelFixtureStart(
  count: number,
  tools: number,
  { timeoutMs = 120_000, listed = false } = {},
): Promise<FloorRun> {
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
      if (listed) {
        ready.push(handshake(group));
        continue;
      }
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
    const ms = performance.now() - started;
    return { ms, cpuMs: groups.reduce((sum, group) => sum + cpuMs(group.pid), 0) };
  } finally {
    await Promise.all(groups.map((group) => group.stop()));
  }
}

/** Milliseconds until all `count` fixture servers with `tools` tools are ready; stops them. */
export async function parallelFixtureStartMs(count: number, tools: number): Promise<number> {
  return (await parallelFixtureStart(count, tools)).ms;
}
