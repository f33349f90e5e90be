/**
 * A real stdio upstream for the server tests: the daemon's own upstream layer
 * (`openStdioUpstream`, so failures carry the codes a daemon's calls get) over a spawned
 * fixture, the dying server (`DYING_SERVER`) unless another is named, under a supervisor of its
 * own. HOME and XDG dirs point at a temp dir so nothing touches the real user's files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createProcessSupervisor,
  openStdioUpstream,
  type UpstreamClient,
  type UpstreamTool,
} from '@tutti/core/internal';
import { DYING_SERVER, UPSTREAM_FIXTURES } from '../paths.js';

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
  const args = options.args ?? [DYING_SERVER];
  const upstream = await openStdioUpstream({
    command: process.execPath,
    args,
    cwd: UPSTREAM_FIXTURES,
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
