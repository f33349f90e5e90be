import { afterEach, describe, expect, it } from 'vitest';
import { startHttpUpstream } from '@tutti/test-kit/http-upstream';
import type { UpstreamTool } from '../contracts/index.js';
import { isTuttiError } from '../errors/index.js';
import { openHttpUpstream } from './open-http.js';
import type { UpstreamConnection, UpstreamExitInfo } from './types.js';

interface HttpFixture {
  url: string;
  requests: {
    httpMethod: string;
    protocolVersion?: string;
    authorization?: string;
    traceparent?: string;
    tracestate?: string;
  }[];
  state: { cancelled: number };
  addTool(name: string): void;
  dropConnections(): void;
  close(): Promise<void>;
}

const servers: HttpFixture[] = [];
const clients: UpstreamConnection[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: Record<string, unknown> = {}): Promise<HttpFixture> {
  const server = (await startHttpUpstream(options)) as HttpFixture;
  servers.push(server);
  return server;
}

async function connect(
  server: HttpFixture,
  options: Partial<Parameters<typeof openHttpUpstream>[0]> = {},
): Promise<UpstreamConnection> {
  const client = await openHttpUpstream({ url: server.url, startTimeoutMs: 10_000, ...options });
  clients.push(client);
  return client;
}

/** Waits (polling) until `condition` holds; the test's own timeout bounds it. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('openHttpUpstream', () => {
  it('sends the trace context in _meta and as headers, in both eras', async () => {
    const traceparent = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
    for (const era of ['both', 'legacy'] as const) {
      const server = await serve({ era });
      const client = await connect(server);
      const result = await client.callTool(
        'echo',
        { withMeta: true },
        { meta: { traceparent, tracestate: 'k=v' } },
      );
      const seen = JSON.parse((result.content[0] as { text: string }).text).meta;
      expect(seen, era).toMatchObject({ traceparent, tracestate: 'k=v' });
      const call = server.requests.find((request) => request.traceparent !== undefined);
      expect(call, era).toMatchObject({ traceparent, tracestate: 'k=v' });
      await client.callTool('echo', {});
      expect(
        server.requests.filter((request) => request.traceparent !== undefined),
        era,
      ).toHaveLength(1);
    }
  });

  it('selects 2026-07-28 when the server offers it', async () => {
    const server = await serve({ toolCount: 2 });
    const client = await connect(server);
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.tools.map((tool) => tool.name)).toContain('tool_2');
  });

  it('falls back to the newest 2025 revision against a 2025-only server', async () => {
    const server = await serve({ era: 'legacy' });
    const client = await connect(server);
    expect(client.protocolVersion).toBe('2025-11-25');
    const result = await client.callTool('structured', { a: 1, b: 1 });
    expect(result.structuredContent).toEqual({ sum: 2 });
  });

  it.each(['both', 'legacy'])(
    'keeps the instructions the %s server sent, and none when it sent none',
    async (era) => {
      const text = 'Search before you create.\nKeep titles short.';
      expect((await connect(await serve({ era, instructions: text }))).instructions).toBe(text);
      expect((await connect(await serve({ era }))).instructions).toBeUndefined();
    },
  );

  it('fails a pinned 2026-07-28 start against a 2025-only server', async () => {
    const server = await serve({ era: 'legacy' });
    const error = await connect(server, { protocol: '2026-07-28' }).catch((caught) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_START_FAILED')).toBe(true);
  });

  it('sends its headers on every request and keeps them out of errors', async () => {
    const server = await serve({ token: 's3cret-token' });
    const client = await connect(server, { headers: { Authorization: 'Bearer s3cret-token' } });
    await client.callTool('echo', { x: 1 });
    expect(server.requests.length).toBeGreaterThan(2);
    expect(server.requests.every((r) => r.authorization === 'Bearer s3cret-token')).toBe(true);

    const denied = await connect(server, {
      headers: { Authorization: 'Bearer wrong-s3cret' },
    }).catch((caught) => caught);
    expect(isTuttiError(denied)).toBe(true);
    expect(
      JSON.stringify({ m: (denied as Error).message, d: (denied as { details: unknown }).details }),
    ).not.toMatch(/s3cret/);
  });

  it('walks small pages of a remote server', async () => {
    const server = await serve({ toolCount: 7, pageSize: 4 });
    const client = await connect(server, { protocol: '2025-06-18' });
    // The fixture's 12 own tools and the 7 generated ones.
    expect(client.tools).toHaveLength(19);
  });

  it('re-lists after list_changed on the 2026-07-28 subscription stream', async () => {
    const server = await serve();
    let push: (tools: UpstreamTool[]) => void = () => {};
    const changed = new Promise<UpstreamTool[]>((resolve) => (push = resolve));
    await connect(server, { onToolsChanged: (tools) => push(tools) });
    server.addTool('remote_added');
    expect((await changed).map((tool) => tool.name)).toContain('remote_added');
  });

  it('cancels a modern call upstream when the caller aborts', async () => {
    const server = await serve();
    const client = await connect(server);
    const controller = new AbortController();
    const call = client.callTool('sleep', { ms: 60_000 }, { signal: controller.signal });
    await client.callTool('echo', {});
    controller.abort();
    expect(isTuttiError(await call.catch((caught) => caught), 'TUTTI_ERR_UPSTREAM_CANCELLED')).toBe(
      true,
    );
    // The closed request stream is the 2026-07-28 cancellation: the tool's signal fires.
    await until(() => server.state.cancelled === 1);
    expect(server.state.cancelled).toBe(1);
  });

  it('rejects a call whose signal already aborted with TUTTI_ERR_UPSTREAM_CANCELLED, sending nothing', async () => {
    const server = await serve();
    const client = await connect(server);
    const sent = server.requests.length;
    const controller = new AbortController();
    controller.abort('cancelled');
    const error = await client
      .callTool('echo', {}, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_CANCELLED')).toBe(true);
    expect(server.requests.length).toBe(sent);
  });

  it('rejects an in-flight call and reports onExit when the server goes away', async () => {
    const server = await serve();
    let exitPush: (info: UpstreamExitInfo) => void = () => {};
    const exited = new Promise<UpstreamExitInfo>((resolve) => (exitPush = resolve));
    const client = await connect(server, { onExit: (info) => exitPush(info) });
    const call = client.callTool('sleep', { ms: 60_000 }).catch((caught) => caught);
    await client.callTool('echo', {});
    await server.close();
    const error = await call;
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_EXITED')).toBe(true);
    expect((await exited).reason).toMatch(
      /^(fetch failed|the server closed its subscription stream)$/,
    );
    const late = await client.callTool('echo', {}).catch((caught) => caught);
    expect(isTuttiError(late, 'TUTTI_ERR_UPSTREAM_EXITED')).toBe(true);
  });
});
