/**
 * The `connector` server as a bench child process, built from `core/dist`: a registry, a
 * token service with one session, and the server on 127.0.0.1. Argv picks the upstream:
 * `everything` (server-everything over stdio via `openStdioUpstream`, tool
 * `everything_echo`), `fixture` (the test kit's stdio fixture, tools `fixture_*`: its
 * `confirm_delete` elicits) or `inprocess` (an echo client in this process, tool `local_echo`);
 * `--tools N` adds N more in-process tools (50 per connector). Reports `{ url, token }`
 * over IPC; answers `{ type: 'bump' }` by committing a changed `probe` connector and
 * replying with the monotonic clock (`process.hrtime`, ns) read just before the commit.
 * `BENCH_CORE_DIST=<dir>` runs another build of `core/dist` (A/B runs of a server change).
 * `BENCH_OBSERVER` (JSON, lib/bench-observer.ts) gives the server the daemon's call
 * recorder; then `{ type: 'flush' }` exports and writes what it holds and `{ type: 'stats' }`
 * reads its counters, each answered `{ type: 'reply', seq, ... }`.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BenchObserver, benchObserverOptions, openBenchObserver } from './bench-observer.js';
import { manyTools } from './tool-sets.js';

type Internal = typeof import('@tutti/core/internal');

// BENCH_CORE_DIST points at another build of core/dist (e.g. a patched copy) for A/B runs.
const internal = process.env.BENCH_CORE_DIST
  ? pathToFileURL(resolve(process.env.BENCH_CORE_DIST, 'internal.js')).href
  : '@tutti/core/internal';
const core = (await import(internal)) as Internal;
const { createConnectorMCPRegistry, createConnectorServer, createTokenService, openStdioUpstream } =
  core;

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const upstreamKind = argv[0] ?? 'everything';
const extraTools = Number(argv[argv.indexOf('--tools') + 1] || 0);

/** An upstream client that answers `echo` in this process. */
const inProcessEcho = {
  async callTool(_name: string, args: Record<string, unknown> | undefined) {
    return { content: [{ type: 'text' as const, text: `Echo: ${args?.message}` }] };
  },
};

const registry = createConnectorMCPRegistry();
let upstream: Awaited<ReturnType<Internal['openStdioUpstream']>> | undefined;
if (upstreamKind === 'everything') {
  upstream = await openStdioUpstream({
    command: process.execPath,
    args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
    env: { HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: process.env.HOME ?? '' },
  });
  registry.commit('everything', 1, upstream, upstream.tools);
} else if (upstreamKind === 'fixture') {
  const { STDIO_SERVER } = await import('@tutti/test-kit');
  upstream = await openStdioUpstream({ command: process.execPath, args: [STDIO_SERVER] });
  registry.commit('fixture', 1, upstream, upstream.tools);
} else {
  const echo = {
    name: 'echo',
    inputSchema: { type: 'object' as const, properties: { message: { type: 'string' } } },
  };
  registry.commit('local', 1, inProcessEcho, [echo]);
}
for (const { key, tools } of manyTools(extraTools)) registry.commit(key, 1, inProcessEcho, tools);

const tokens = createTokenService();
const token = tokens.issue('bench-workspace', 'bench-session');
const observing = benchObserverOptions();
const observed: BenchObserver | undefined = observing && (await openBenchObserver(core, observing));
// The fan-out bench opens 100 listen streams on its one token; the default cap is 16 per
// token (docs/limits.md), so this server raises it.
const server = await createConnectorServer({
  registry,
  tokens,
  keepAliveMs: 0,
  maxListenStreamsPerToken: 1000,
  ...(observed && { observer: observed.observer }),
});

let generation = 1;
process.on('message', (message: { type?: string; seq?: number }) => {
  if (message?.type === 'flush') {
    void (observed?.flush() ?? Promise.resolve()).then(() =>
      process.send?.({ type: 'reply', seq: message.seq }),
    );
    return;
  }
  if (message?.type === 'stats') {
    process.send?.({ type: 'reply', seq: message.seq, ...observed?.stats() });
    return;
  }
  if (message?.type !== 'bump') return;
  generation += 1;
  const tool = { name: `probe_${generation}`, inputSchema: { type: 'object' as const } };
  const at = process.hrtime.bigint();
  registry.commit('probe', generation, inProcessEcho, [tool]);
  process.send?.({ type: 'bumped', seq: message.seq, at: String(at) });
});

async function shutdown(): Promise<void> {
  await server.close();
  await observed?.close();
  await upstream?.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('disconnect', shutdown);
process.send?.({ url: server.url, token, tools: registry.snapshot().tools.length });
