/**
 * Starts every server the peer bench compares, each as a child process group on
 * 127.0.0.1, all fronting the same upstream (server-everything over stdio, tool `echo`):
 * the HTTP floor, the lean proxy, the `connector` server, mcp-proxy and supergateway. Each start returns
 * `{ name, url, headers, tool, stop() }`.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { firstMessage, freePort, spawnGroup, waitForPort } from './processes.mjs';

const require = createRequire(import.meta.url);
const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/** Path of the server-everything entry (run as `node <path> stdio`). */
export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const MCP_PROXY = require.resolve('mcp-proxy/dist/bin/mcp-proxy.mjs');
const SUPERGATEWAY = require.resolve('supergateway/dist/index.js');

/** The bare node:http JSON-RPC echo server. */
export async function startHttpFloor() {
  const group = spawnGroup(process.execPath, [here('./http-floor-server.mjs')], { ipc: true });
  const { port } = await firstMessage(group);
  return {
    name: 'http floor',
    url: `http://127.0.0.1:${port}/mcp`,
    headers: {},
    tool: 'echo',
    stop: () => group.stop(),
  };
}

/** The lean proxy: bare node:http forwarding to server-everything's stdio, no SDK. */
export async function startLeanProxy() {
  const group = spawnGroup(process.execPath, [here('./lean-proxy-server.mjs'), EVERYTHING], {
    ipc: true,
  });
  const { port } = await firstMessage(group);
  return {
    name: 'lean proxy',
    url: `http://127.0.0.1:${port}/mcp`,
    headers: {},
    tool: 'echo',
    stop: () => group.stop(),
  };
}

/**
 * The `connector` server in a child (`upstream`: `everything` or `inprocess`); `tools`
 * extra in-process tools; `coreDist` another core/dist build (default: `BENCH_CORE_DIST`). The result also has `bump()`: commit a visible change, resolve
 * to the child's monotonic clock (ns, bigint) read just before the commit.
 */
export async function startConnector({
  upstream = 'everything',
  tools = 0,
  coreDist = process.env.BENCH_CORE_DIST,
} = {}) {
  const group = spawnGroup(
    process.execPath,
    [here('./connector-server-child.mjs'), upstream, '--tools', String(tools)],
    { ipc: true, env: coreDist ? { BENCH_CORE_DIST: coreDist } : {} },
  );
  const ready = await firstMessage(group);
  let seq = 0;
  return {
    name: 'connector',
    url: ready.url,
    headers: { authorization: `Bearer ${ready.token}` },
    token: ready.token,
    tool: upstream === 'everything' ? 'everything_echo' : 'local_echo',
    toolCount: ready.tools,
    /** Pid of the server process (the group leader). */
    pid: group.child.pid,
    bump() {
      seq += 1;
      const mine = seq;
      return new Promise((resolve) => {
        const onMessage = (message) => {
          if (message?.type !== 'bumped' || message.seq !== mine) return;
          group.child.off('message', onMessage);
          resolve(BigInt(message.at));
        };
        group.child.on('message', onMessage);
        group.child.send({ type: 'bump', seq: mine });
      });
    },
    stop: () => group.stop(),
  };
}

/** mcp-proxy (sessionful 2025 leg, no event store) as a stdio -> Streamable HTTP gateway. */
export async function startMcpProxy() {
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
export async function startSupergateway() {
  const port = await freePort();
  const group = spawnGroup(process.execPath, [
    '--import',
    here('./loopback-only.mjs'),
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
