/**
 * The real server's socket: bound to 127.0.0.1 only. The kernel's own table of listening
 * sockets is read, so a server that bound 0.0.0.0 or :: (every interface) fails here even
 * if it still reported a loopback URL.
 */
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningAddresses } from '@tutti/test-kit/listening-addresses';
import { type ConnectorServer, createConnectorServer } from './connector-server.js';
import { createWorld } from '@tutti/test-kit/core/server-world';

/** Resolves with the error code of connecting to `host:port` (or 'connected'). */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('the connector server socket', () => {
  let server: ConnectorServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('listens on 127.0.0.1 and on no other address', async () => {
    const world = createWorld();
    server = await createConnectorServer({ registry: world.registry, tokens: world.tokens });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp/connector`);
    if (process.platform === 'linux') {
      expect(listeningAddresses(server.port)).toEqual(['127.0.0.1']);
    }
    // Every address of this machine that is not loopback: nothing answers there.
    const outside = Object.values(networkInterfaces())
      .flat()
      .filter((entry) => entry !== undefined && !entry.internal)
      .map((entry) => entry!.address);
    for (const address of outside) {
      expect(await tryConnect(address, server.port), address).not.toBe('connected');
    }
  });

  it('keeps to 127.0.0.1 on a fixed port too', async () => {
    const world = createWorld();
    const first = await createConnectorServer({ registry: world.registry, tokens: world.tokens });
    const port = first.port;
    await first.close();
    server = await createConnectorServer({ registry: world.registry, tokens: world.tokens, port });
    expect(server.port).toBe(port);
    if (process.platform === 'linux') expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
  });
});
