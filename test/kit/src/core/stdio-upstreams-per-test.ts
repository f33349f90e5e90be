/**
 * Stdio upstreams opened through the daemon's own upstream layer for one test file: one
 * process supervisor for the file, every upstream a test opened closed after it, and the
 * supervisor (with anything left in its groups) stopped after the file. Call it at the top
 * level of a test file; it registers the hooks.
 */
import { join } from 'node:path';
import {
  createProcessSupervisor,
  openStdioUpstream,
  type ProcessSupervisor,
  type StdioUpstreamOptions,
  type UpstreamConnection,
} from '@tutti/core/internal';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { UPSTREAM_FIXTURES } from '../paths.js';

/**
 * Opens `script` with node: a name of the kit's upstream fixtures, or node's whole
 * arguments (a script path and its own arguments).
 */
export type OpenStdio = (
  script: string | readonly string[],
  options?: Partial<Omit<StdioUpstreamOptions, 'supervisor'>>,
) => Promise<UpstreamConnection>;

/** The opener of this test file's stdio upstreams. */
export function stdioUpstreamsPerTest(): OpenStdio {
  let supervisor: ProcessSupervisor;
  const open: UpstreamConnection[] = [];
  beforeAll(() => {
    supervisor = createProcessSupervisor({ graceMs: 300 });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((upstream) => upstream.close()));
  });
  afterAll(async () => {
    await supervisor.close();
  });
  return async (script, options = {}) => {
    const upstream = await openStdioUpstream({
      command: process.execPath,
      args: typeof script === 'string' ? [join(UPSTREAM_FIXTURES, script)] : script,
      supervisor,
      startTimeoutMs: 15_000,
      ...options,
    });
    open.push(upstream);
    return upstream;
  };
}
