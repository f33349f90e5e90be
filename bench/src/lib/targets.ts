/**
 * Starts every server the peer bench compares, each as a child process group on
 * 127.0.0.1, all fronting the same upstream (server-everything over stdio, tool `echo`):
 * the HTTP floor, the lean proxy, the `connector` server, mcp-proxy and supergateway. Each
 * start returns a {@link BenchServer}.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { freePort } from '@tutti/test-kit/free-port';
import { LOOPBACK_ONLY } from '@tutti/test-kit/paths';
import type { BenchObserverOptions } from './bench-observer.js';
import { firstMessage, spawnGroup, waitForPort } from './processes.js';

const require = createRequire(import.meta.url);
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** Path of the server-everything entry (run as `node <path> stdio`). */
export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const MCP_PROXY = require.resolve('mcp-proxy/dist/bin/mcp-proxy.mjs');
const SUPERGATEWAY = require.resolve('supergateway/dist/index.js');

/** A running server a client can reach. */
export interface BenchServer {
  readonly name: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** Name of the echo tool on this server. */
  readonly tool: string;
  stop(): Promise<void>;
}

/** The `connector` server child, with its token, its pid and a way to commit a change. */
export interface ConnectorChild extends BenchServer {
  readonly token: string;
  readonly toolCount: number;
  /** Pid of the server process (the group leader). */
  readonly pid: number;
  /** Commits a visible change; resolves to the child's monotonic clock (ns) just before it. */
  bump(): Promise<bigint>;
  /**
   * Asks the child's observer (`observer` option): `flush` resolves once every span is
   * exported and every record written, `stats` to its counters (lib/bench-observer.ts).
   */
  ask<T = Record<string, unknown>>(type: 'flush' | 'stats'): Promise<T>;
}

/** What a server child reports over IPC once it listens. */
interface PortReport {
  readonly port: number;
}

/** The bare node:http JSON-RPC echo server. */
export async function startHttpFloor(): Promise<BenchServer> {
  const group = spawnGroup(process.execPath, [here('./http-floor-server.js')], { ipc: true });
  const { port } = await firstMessage<PortReport>(group);
  return {
    name: 'http floor',
    url: `http://127.0.0.1:${port}/mcp`,
    headers: {},
    tool: 'echo',
    stop: () => group.stop(),
  };
}

/** The lean proxy: bare node:http forwarding to server-everything's stdio, no SDK. */
export async function startLeanProxy(): Promise<BenchServer> {
  const group = spawnGroup(process.execPath, [here('./lean-proxy-server.js'), EVERYTHING], {
    ipc: true,
  });
  const { port } = await firstMessage<PortReport>(group);
  return {
    name: 'lean proxy',
    url: `http://127.0.0.1:${port}/mcp`,
    headers: {},
    tool: 'echo',
    stop: () => group.stop(),
  };
}

/** Options of {@link startConnector}. */
export interface ConnectorOptions {
  /**
   * `everything` (server-everything over stdio), `fixture` (the test kit's stdio fixture) or
   * `inprocess` (an echo in the child).
   */
  upstream?: 'everything' | 'fixture' | 'inprocess';
  /** Extra in-process tools. */
  tools?: number;
  /** Another build's core/dist folder (default: `BENCH_CORE_DIST`, else this build). */
  coreDist?: string | undefined;
  /** Give the server the daemon's call recorder (lib/bench-observer.ts); none: no observer. */
  observer?: BenchObserverOptions;
  /** Node arguments before the child's script (e.g. the heap probe's). */
  nodeArgs?: readonly string[];
  /** More environment for the child. */
  env?: Record<string, string>;
}

/** The `connector` server in a child. */
export async function startConnector({
  upstream = 'everything',
  tools = 0,
  coreDist = process.env.BENCH_CORE_DIST,
  observer,
  nodeArgs = [],
  env = {},
}: ConnectorOptions = {}): Promise<ConnectorChild> {
  const group = spawnGroup(
    process.execPath,
    [...nodeArgs, here('./connector-server-child.js'), upstream, '--tools', String(tools)],
    {
      ipc: true,
      env: {
        ...env,
        ...(coreDist && { BENCH_CORE_DIST: coreDist }),
        ...(observer && { BENCH_OBSERVER: JSON.stringify(observer) }),
      },
    },
  );
  const ready = await firstMessage<{ url: string; token: string; tools: number }>(group);
  let seq = 0;
  return {
    name: 'connector',
    url: ready.url,
    headers: { authorization: `Bearer ${ready.token}` },
    token: ready.token,
    tool: `${upstream === 'inprocess' ? 'local' : upstream}_echo`,
    toolCount: ready.tools,
    pid: group.pid,
    bump() {
      seq += 1;
      const mine = seq;
      return new Promise((resolve) => {
        const onMessage = (message: { type?: string; seq?: number; at?: string }) => {
          if (message?.type !== 'bumped' || message.seq !== mine) return;
          group.child.off('message', onMessage);
          resolve(BigInt(message.at ?? 0));
        };
        group.child.on('message', onMessage);
        group.child.send({ type: 'bump', seq: mine });
      });
    },
    ask<T>(type: 'flush' | 'stats') {
      seq += 1;
      const mine = seq;
      return new Promise<T>((resolve, reject) => {
        const onExit = () =>
          reject(new Error(`the connector child exited before its ${type} reply`));
        const onMessage = (message: { type?: string; seq?: number }) => {
          if (message?.type !== 'reply' || message.seq !== mine) return;
          group.child.off('message', onMessage).off('exit', onExit);
          const { type: _type, seq: _seq, ...answer } = message;
          resolve(answer as T);
        };
        group.child.on('message', onMessage).once('exit', onExit);
        group.child.send({ type, seq: mine });
      });
    },
    stop: () => group.stop(),
  };
}

/** mcp-proxy (sessionful 2025 leg, no event store) as a stdio -> Streamable HTTP gateway. */
export async function startMcpProxy(): Promise<BenchServer> {
  const port = await freePort();
  const group = spawnGroup(process.execPath, [
    MCP_PROXY,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--server',
    'stream',
    '--no-eventStore',
    '--',
    process.execPath,
    EVERYTHING,
    'stdio',
  ]);
  await waitForPort(port, group);
  return {
    name: 'mcp-proxy',
    url: `http://127.0.0.1:${port}/mcp`,
    headers: {},
    tool: 'echo',
    stop: () => group.stop(),
  };
}

/**
 * supergateway in stateful stdio -> Streamable HTTP mode (its stateless mode spawns one
 * upstream per POST). It has no host option, so a preload binds it to 127.0.0.1.
 */
export async function startSupergateway(): Promise<BenchServer> {
  const port = await freePort();
  const group = spawnGroup(process.execPath, [
    '--import',
    LOOPBACK_ONLY,
    SUPERGATEWAY,
    '--stdio',
    `"${process.execPath}" "${EVERYTHING}" stdio`,
    '--outputTransport',
    'streamableHttp',
    '--stateful',
    '--port',
    String(port),
    '--logLevel',
    'none',
  ]);
  await waitForPort(port, group);
  return {
    name: 'supergateway',
    url: `http://127.0.0.1:${port}/mcp`,
    headers: {},
    tool: 'echo',
    stop: () => group.stop(),
  };
}
