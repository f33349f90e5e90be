/**
 * A real stdio upstream for the server tests: the daemon's own upstream layer
 * (`openStdioUpstream`, so failures carry the codes a daemon's calls get) over a spawned
 * fixture, `dying-stdio-upstream.mjs` unless another is named, under a supervisor of its
 * own. HOME and XDG dirs point at a temp dir so nothing touches the real user's files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UpstreamClient, UpstreamTool } from '../contracts/index.js';
import { createProcessSupervisor } from '../process/index.js';
import { openStdioUpstream } from '../upstream/index.js';

/** A connected stdio upstream. */
export interface StdioUpstream extends UpstreamClient {
  readonly tools: readonly UpstreamTool[];
  /** Pid of the upstream process. */
  readonly pid: number | undefined;
  /** Stops the upstream's process group and its supervisor. */
  close(): Promise<void>;
}

/** Options of {@link startStdioUpstream}. */
export interface StdioUpstreamStart {
  /** The server script and its arguments (default: the dying fixture). */
  readonly args?: readonly string[];
  /** Timeout of one tools/call in ms (default: the upstream layer's). */
  readonly callTimeoutMs?: number;
}

/** Spawns the stdio fixture, connects and lists its tools. */
export async function startStdioUpstream(options: StdioUpstreamStart = {}): Promise<StdioUpstream> {
  const home = mkdtempSync(join(tmpdir(), 'tutti-stdio-upstream-'));
  const supervisor = createProcessSupervisor({ graceMs: 300 });
  const stop = async () => {
    await supervisor.close();
    rmSync(home, { recursive: true, force: true });
  };
  const args = options.args ?? [
    fileURLToPath(new URL('./dying-stdio-upstream.mjs', import.meta.url)),
  ];
  const upstream = await openStdioUpstream({
    command: process.execPath,
    args,
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    env: { HOME: home, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home },
    supervisor,
    startTimeoutMs: 15_000,
    ...(options.callTimeoutMs !== undefined && { callTimeoutMs: options.callTimeoutMs }),
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    tools: upstream.tools,
    pid: upstream.pid,
    callTool: (name, callArgs, callOptions) => upstream.callTool(name, callArgs, callOptions),
    async close() {
      await upstream.close();
      await stop();
    },
  };
}
