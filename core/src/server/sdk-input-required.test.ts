/**
 * The real SDK v2 client pinned to 2026-07-28 over a 127.0.0.1 socket against a tool that
 * asks the person: its auto-fulfilment driver answers `input_required` through its own
 * elicitation handler, and its manual mode gets `input_required` and retries by hand.
 */
import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConnectorServer, createConnectorServer } from './connector-server.js';
import { type AskingUpstream, filesUpstream } from '@tutti/test-kit/core/fake-upstream';
import { createWorld, type World } from '@tutti/test-kit/core/server-world';

describe('SDK v2 client on 2026-07-28 against a tool that asks', () => {
  let world: World;
  let files: AskingUpstream;
  let server: ConnectorServer;
  const clients: Client[] = [];

  beforeEach(async () => {
    world = createWorld();
    files = filesUpstream();
    world.registry.commit('files', 1, files, files.tools);
    server = await createConnectorServer({
      registry: world.registry,
      tokens: world.tokens,
      keepAliveMs: 0,
    });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await server.close();
  });

  async function connect(options: ClientOptions, token = world.token): Promise<Client> {
    const client = new Client(
      { name: 'sdk-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...options },
    );
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  it('auto-fulfils input_required through the client’s elicitation handler', async () => {
    const client = await connect({ capabilities: { elicitation: { form: {} } } });
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { confirm: true } };
    });
    const result = await client.callTool({ name: 'files_delete', arguments: { path: '/a' } });
    expect(result.structuredContent).toEqual({ deleted: true, action: 'accept' });
    expect(asked).toEqual([expect.objectContaining({ mode: 'form', message: 'Delete /a?' })]);
    expect(files.answers).toEqual([{ action: 'accept', content: { confirm: true } }]);
  });

  it('auto-fulfils a call that asks twice', async () => {
    const client = await connect({ capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      const content: Record<string, string | boolean> =
        request.params.message === 'New name?' ? { name: 'z.txt' } : { confirm: true };
      return { action: 'accept', content };
    });
    const result = await client.callTool({ name: 'files_rename', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'renamed:z.txt:accept' }]);
  });

  it('hands input_required back in manual mode, then the result on the retry, and -32602 on a replay', async () => {
    const client = await connect({
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'cancel' }));
    const params = { name: 'files_delete', arguments: { path: '/m' } };
    const first = (await client.request(
      { method: 'tools/call', params },
      { allowInputRequired: true },
    )) as unknown as { resultType: string; requestState: string; inputRequests: object };
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests).toHaveProperty('elicitation.method', 'elicitation/create');
    const retryParams = {
      ...params,
      inputResponses: { elicitation: { action: 'accept', content: { confirm: true } } },
      requestState: first.requestState,
    };
    const done = await client.request(
      { method: 'tools/call', params: retryParams },
      { allowInputRequired: true },
    );
    expect(done).toMatchObject({ structuredContent: { deleted: true, action: 'accept' } });
    await expect(
      client.request({ method: 'tools/call', params: retryParams }, { allowInputRequired: true }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('gets the cancelled outcome at once when the client declares no elicitation', async () => {
    const client = await connect({});
    const result = await client.callTool({ name: 'files_delete', arguments: { path: '/n' } });
    expect(result.structuredContent).toEqual({ deleted: false, action: 'cancel' });
  });
});
