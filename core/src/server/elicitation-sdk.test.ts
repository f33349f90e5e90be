/**
 * An upstream's question and progress through the server to real SDK clients over a real
 * 127.0.0.1 socket: SDK v1 and SDK v2 on MCP 2025 (elicitation and progress on the
 * streamed answer of `tools/call`, the answer POSTed back), SDK v2 on 2026-07-28 (progress).
 */
import { Writable } from 'node:stream';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConnectorServer, createConnectorServer } from './connector-server.js';
import { askingUpstream, type FakeUpstream } from '@tutti/test-kit/core/fake-upstream';
import { createWorld, type World } from '@tutti/test-kit/core/server-world';

type Capabilities = Record<string, unknown>;

describe('elicitation and progress through the server to SDK clients', () => {
  let world: World;
  let asking: FakeUpstream;
  let server: ConnectorServer;
  let logLines: string[];
  const clients: { close(): Promise<void> }[] = [];

  async function start(elicitationTimeoutMs?: number): Promise<void> {
    server = await createConnectorServer({
      registry: world.registry,
      tokens: world.tokens,
      logger: pino(
        { level: 'trace' },
        new Writable({
          write(chunk, _encoding, done) {
            logLines.push(String(chunk));
            done();
          },
        }),
      ),
      keepAliveMs: 0,
      ...(elicitationTimeoutMs !== undefined && { elicitationTimeoutMs }),
    });
  }

  beforeEach(async () => {
    world = createWorld();
    asking = askingUpstream();
    world.registry.commit('ask', 1, asking, asking.tools);
    logLines = [];
    await start();
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await server.close();
    const logs = logLines.join('');
    expect(logs).not.toContain(world.token);
    // Nothing the person typed is ever logged.
    expect(logs).not.toContain('typed-by-the-person');
  });

  async function connectV1(capabilities: Capabilities, token = world.token): Promise<ClientV1> {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' }, { capabilities });
    clients.push(client);
    await client.connect(
      new TransportV1(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  async function connectV2(capabilities: Capabilities, pin = false): Promise<ClientV2> {
    const client = new ClientV2(
      { name: 'sdk-v2', version: '1.0.0' },
      pin
        ? { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } }
        : { capabilities },
    );
    clients.push(client);
    await client.connect(
      new TransportV2(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${world.token}` } },
      }),
    );
    return client;
  }

  it('relays the question to an SDK v1 client that declared elicitation and its answer back upstream', async () => {
    const client = await connectV1({ elicitation: {} });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      // While the person thinks, the board shows the question for the session.
      expect(server.elicitations.pendingFor('sess-1')).toEqual([
        expect.objectContaining({
          agentSessionId: 'sess-1',
          connector: 'ask',
          tool: 'ask_confirm',
          request: expect.objectContaining({ mode: 'form', message: 'Delete 40 files?' }),
        }),
      ]);
      return { action: 'accept', content: { confirm: true, note: 'typed-by-the-person' } };
    });
    const result = await client.callTool({ name: 'ask_confirm', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'deleted:true' }]);
    expect(result.structuredContent).toEqual({
      action: 'accept',
      content: { confirm: true, note: 'typed-by-the-person' },
    });
    expect(asked).toEqual([
      {
        mode: 'form',
        message: 'Delete 40 files?',
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        },
      },
    ]);
    expect(server.elicitations.pendingFor('sess-1')).toEqual([]);
    expect(server.elicitations.size).toBe(0);
  });

  it('relays a form question to an SDK v2 client on MCP 2025 and a decline back upstream', async () => {
    const client = await connectV2({ elicitation: { form: {} } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    const result = await client.callTool({ name: 'ask_confirm', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'deleted:false' }]);
    expect(result.structuredContent).toEqual({ action: 'decline' });
  });

  it('relays a URL question only to a client that declared URL mode', async () => {
    const formOnly = await connectV1({ elicitation: { form: {} } });
    expect((await formOnly.callTool({ name: 'ask_visit', arguments: {} })).content).toEqual([
      { type: 'text', text: 'visited:cancel' },
    ]);

    const withUrl = await connectV2({ elicitation: { form: {}, url: {} } });
    const asked: unknown[] = [];
    withUrl.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept' };
    });
    expect((await withUrl.callTool({ name: 'ask_visit', arguments: {} })).content).toEqual([
      { type: 'text', text: 'visited:accept' },
    ]);
    expect(asked).toEqual([
      {
        mode: 'url',
        message: 'Sign in to the tracker',
        url: 'https://tracker.example/login?state=abc',
        elicitationId: 'login-1',
      },
    ]);
  });

  it('answers the upstream cancel within a second for a client without the capability', async () => {
    const client = await connectV1({});
    const started = performance.now();
    const result = await client.callTool({ name: 'ask_confirm', arguments: {} });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.structuredContent).toEqual({ action: 'cancel' });
    // Nobody could be asked, so the upstream call was given nobody to ask.
    expect(asking.calls[0]!.canElicit).toBe(false);
  });

  it('answers the upstream cancel when the client never answers, after the timeout option', async () => {
    await server.close();
    await start(200);
    const client = await connectV1({ elicitation: {} });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked += 1;
      return new Promise(() => undefined);
    });
    const result = await client.callTool({ name: 'ask_confirm', arguments: {} });
    expect(asked).toBe(1);
    expect(result.structuredContent).toEqual({ action: 'cancel' });
    expect(server.elicitations.size).toBe(0);
  });

  it.each(['v1', 'v2', 'v2 2026-07-28'] as const)(
    'relays progress in order with the caller’s token to the %s client, and none without one',
    async (which) => {
      const client =
        which === 'v1' ? await connectV1({}) : await connectV2({}, which === 'v2 2026-07-28');
      const seen: unknown[] = [];
      const onprogress = (progress: unknown) => void seen.push(progress);
      const result =
        client instanceof ClientV1
          ? await client.callTool({ name: 'ask_count', arguments: {} }, undefined, { onprogress })
          : await client.callTool({ name: 'ask_count', arguments: {} }, { onprogress });
      expect(result.content).toEqual([{ type: 'text', text: 'counted' }]);
      expect(seen).toEqual(
        [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })),
      );
      expect(asking.calls[0]!.hearsProgress).toBe(true);

      const quiet = await client.callTool({ name: 'ask_count', arguments: {} });
      expect(quiet.content).toEqual([{ type: 'text', text: 'counted' }]);
      expect(asking.calls[1]!.hearsProgress).toBe(false);
    },
  );
});
