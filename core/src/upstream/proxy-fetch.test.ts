/**
 * Remote connectors behind a proxy: with HTTP_PROXY set, every request of the upstream
 * client goes through it (a forward proxy on loopback, as a corporate one would be), and
 * NO_PROXY keeps a host off it. The credential header reaches the server through the proxy
 * unchanged, and the daemon's default launcher takes the proxy from its own environment.
 */
import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpUpstream } from '@tutti/test-kit/http-upstream';
import { launchUpstream } from '../runtime/launch-upstream.js';
import type { InstalledConnector } from '../store/index.js';
import { openHttpUpstream } from './open-http.js';
import { proxyFetch, proxySettings } from './proxy-fetch.js';
import type { UpstreamConnection } from './types.js';

interface HttpFixture {
  url: string;
  requests: { httpMethod: string; authorization?: string }[];
  close(): Promise<void>;
}

/**
 * A forward proxy: absolute-form requests are passed on, and CONNECT (what undici's proxy
 * agent sends, for http and https targets alike) opens a tunnel.
 */
async function startProxy(): Promise<{ url: string; seen: string[]; server: Server }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const forward = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    tunnels.add(client);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, server };
}

const tunnels = new Set<Socket>();
const servers: HttpFixture[] = [];
const proxies: Server[] = [];
const clients: UpstreamConnection[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const tunnel of tunnels) tunnel.destroy();
  tunnels.clear();
  for (const proxy of proxies.splice(0)) {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  }
});

async function setup() {
  const server = (await startHttpUpstream({ token: 'remote-key-1' })) as HttpFixture;
  servers.push(server);
  const proxy = await startProxy();
  proxies.push(proxy.server);
  return { server, proxy };
}

describe('remote connectors behind a proxy', () => {
  it('reads the proxy settings in either case, and needs none', () => {
    expect(proxySettings({ https_proxy: 'http://p:3128', NO_PROXY: 'localhost' })).toEqual({
      httpsProxy: 'http://p:3128',
      noProxy: 'localhost',
    });
    expect(proxySettings({ HTTP_PROXY: '' })).toEqual({});
    expect(proxyFetch({ PATH: '/bin' })).toBeUndefined();
  });

  it('sends every request through HTTP_PROXY, credential header and all', async () => {
    const { server, proxy } = await setup();
    const client = await openHttpUpstream({
      url: server.url,
      headers: { Authorization: 'Bearer remote-key-1' },
      startTimeoutMs: 10_000,
      fetch: proxyFetch({ HTTP_PROXY: proxy.url }),
    });
    clients.push(client);
    const result = await client.callTool('echo', { via: 'proxy' });
    expect(JSON.stringify(result.content)).toContain('proxy');
    const { host } = new URL(server.url);
    expect(proxy.seen.length).toBeGreaterThan(0);
    expect(proxy.seen.every((line) => line === `CONNECT ${host}`)).toBe(true);
    expect(server.requests.length).toBeGreaterThan(1);
    expect(server.requests.every((r) => r.authorization === 'Bearer remote-key-1')).toBe(true);
  });

  it('keeps a host that NO_PROXY names off the proxy', async () => {
    const { server, proxy } = await setup();
    const client = await openHttpUpstream({
      url: server.url,
      headers: { Authorization: 'Bearer remote-key-1' },
      startTimeoutMs: 10_000,
      fetch: proxyFetch({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }),
    });
    clients.push(client);
    await client.callTool('echo', { via: 'direct' });
    expect(proxy.seen).toEqual([]);
    expect(server.requests.length).toBeGreaterThan(1);
  });

  it("launches a remote connector through the proxy of the daemon's own environment", async () => {
    const { server, proxy } = await setup();
    const saved = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = proxy.url;
    try {
      const connector = {
        key: 'far',
        paths: { mcp: { transport: 'http', url: server.url } },
        manifest: { auth: { kind: 'api_key', header: 'Authorization', prefix: 'Bearer ' } },
      } as unknown as InstalledConnector;
      const credential = { secret: { reveal: () => 'remote-key-1' } };
      const client = await launchUpstream(connector, credential as never, {
        startTimeoutMs: 10_000,
        onToolsChanged: () => {},
        onExit: () => {},
      });
      clients.push(client);
      expect(client.tools.map((tool) => tool.name)).toContain('echo');
      expect(proxy.seen.length).toBeGreaterThan(0);
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved;
    }
  });
});
