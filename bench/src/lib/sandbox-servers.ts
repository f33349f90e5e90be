/**
 * The servers of the sandbox bench (sandbox.bench.ts): copies of the test kit's
 * dependency-free `echo` release with the server inside the release, started the way the
 * runtime starts one under a daemon's sandbox, and checked `tools/call echo` samples.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { openStdioUpstream } from '@tutti/core/internal';
import { CONNECTOR_FIXTURES } from '@tutti/test-kit/paths';
import type { TestDaemon } from '@tutti/test-kit/reliability/in-process-daemon';

type Daemon = TestDaemon['daemon'];
/** An installed connector, as a daemon's sandbox prepares it. */
export type Installed = Parameters<Daemon['sandbox']['prepare']>[0];
/** A started upstream. */
export type Upstream = Awaited<ReturnType<typeof openStdioUpstream>>;

/** The echo fixture's tools. */
export const TOOLS = 2;

/** `count` copies of the echo release, keys `sbx-000`..., each with its server inside. */
export async function writeEchoReleases(parent: string, count: number): Promise<string[]> {
  const source = join(CONNECTOR_FIXTURES, 'echo');
  const manifest = JSON.parse(await readFile(join(source, 'tutti-connector.json'), 'utf8'));
  const dirs: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const key = `sbx-${String(i).padStart(3, '0')}`;
    const dir = join(parent, key);
    await cp(source, dir, { recursive: true });
    await writeFile(
      join(dir, 'tutti-connector.json'),
      JSON.stringify({ ...manifest, key, name: `Sandbox bench ${i}` }, null, 2),
    );
    dirs.push(dir);
  }
  return dirs;
}

/** A server started as the runtime starts one, and the time its start took. */
export interface Started {
  readonly upstream: Upstream;
  /** `sandbox.prepare` (state and temp folders, policy, wrap). */
  readonly prepareMs: number;
  /** Prepare + spawn to initialize and the first tools/list done. */
  readonly startMs: number;
}

/** Starts `connector`'s server under `daemon`'s sandbox, like `launchUpstream` does. */
export async function startServer(daemon: Daemon, connector: Installed): Promise<Started> {
  const mcp = connector.paths.mcp;
  if (mcp?.transport !== 'stdio') throw new Error(`${connector.key} has no stdio server`);
  const t0 = performance.now();
  const server = await daemon.sandbox.prepare(connector, {});
  const prepareMs = performance.now() - t0;
  const upstream = await openStdioUpstream({
    ...server.launch,
    target: basename(mcp.command),
    supervisor: daemon.supervisor,
    startTimeoutMs: 30_000,
    onGone: () => void server.release(),
  });
  const startMs = performance.now() - t0;
  if (upstream.tools.length !== TOOLS) {
    await upstream.close();
    throw new Error(`${connector.key}: listed ${upstream.tools.length} tools, not ${TOOLS}`);
  }
  return { upstream, prepareMs, startMs };
}

let seq = 0;
/** One checked `tools/call echo`. */
export async function echo(upstream: Upstream): Promise<void> {
  const text = `t${++seq}`;
  const answer = await upstream.callTool('echo', { text });
  const content = answer.content as { text?: string }[] | undefined;
  if (answer.isError || content?.[0]?.text !== text) {
    throw new Error(`unexpected echo answer: ${JSON.stringify(answer).slice(0, 200)}`);
  }
}

/** Latencies (ms) of `count` sequential checked calls, appended to `into`. */
export async function callSamples(
  upstream: Upstream,
  count: number,
  into: number[],
): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const t0 = performance.now();
    await echo(upstream);
    into.push(performance.now() - t0);
  }
}
