/**
 * An HTTP upstream asking the person mid-call and reporting progress, against the real
 * fixture server on 127.0.0.1 in both eras that can ask: 2025 with sessions (the question
 * rides the SSE stream of the call's POST) and 2026-07-28 (the call answers
 * `input_required` and the SDK retries it with the answer). Each question reaches the call
 * it belongs to, also with several calls in flight.
 */
import { startHttpUpstream } from '@tutti/test-kit/http-upstream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type {
  CallProgress,
  ElicitationAnswer,
  ElicitationRequest,
  UpstreamCallResult,
} from '../contracts/index.js';
import { openHttpUpstream } from './open-http.js';
import type { UpstreamConnection } from './types.js';

interface HttpFixture {
  url: string;
  close(): Promise<void>;
}

const servers: HttpFixture[] = [];
const clients: UpstreamConnection[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function connect(era: string): Promise<UpstreamConnection> {
  const server = (await startHttpUpstream({ era })) as HttpFixture;
  servers.push(server);
  const client = await openHttpUpstream({ url: server.url, startTimeoutMs: 10_000 });
  clients.push(client);
  return client;
}

function json(result: UpstreamCallResult): unknown {
  return JSON.parse((result.content[0] as { text: string }).text);
}

/** An `elicit` that records what it was asked and answers `answer`. */
function answering(answer: ElicitationAnswer) {
  const asked: ElicitationRequest[] = [];
  const elicit = async (request: ElicitationRequest) => {
    asked.push(request);
    return answer;
  };
  return { asked, elicit };
}

const eras = [
  { era: 'stateful', protocol: '2025-11-25' },
  { era: 'both', protocol: '2026-07-28' },
];

describe.each(eras)('elicitation of an HTTP upstream ($protocol)', ({ era, protocol }) => {
  it('gives each of several concurrent calls only its own question', async () => {
    const client = await connect(era);
    expect(client.protocolVersion).toBe(protocol);
    const people = [1, 2, 3, 4].map((files) =>
      answering(
        files % 2 === 1 ? { action: 'accept', content: { confirm: true } } : { action: 'decline' },
      ),
    );
    const results = await Promise.all(
      people.map(({ elicit }, index) =>
        client.callTool('confirm_delete', { files: index + 1 }, { elicit }),
      ),
    );
    expect(results.map(json)).toEqual([
      { deleted: true },
      { deleted: false, action: 'decline' },
      { deleted: true },
      { deleted: false, action: 'decline' },
    ]);
    expect(people.map(({ asked }) => asked.map((request) => request.message))).toEqual([
      ['Delete 1 files?'],
      ['Delete 2 files?'],
      ['Delete 3 files?'],
      ['Delete 4 files?'],
    ]);
    expect(people[0]!.asked[0]).toEqual({
      mode: 'form',
      message: 'Delete 1 files?',
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', description: 'Delete them' } },
        required: ['confirm'],
      },
    });
  });

  it('answers cancel at once when the call has no elicit, or elicit rejects', async () => {
    const client = await connect(era);
    const started = Date.now();
    expect(json(await client.callTool('confirm_delete', {}))).toEqual({
      deleted: false,
      action: 'cancel',
    });
    expect(Date.now() - started).toBeLessThan(1000);
    const elicit = vi.fn(() => Promise.reject(new Error('nobody to ask')));
    expect(json(await client.callTool('confirm_delete', {}, { elicit }))).toEqual({
      deleted: false,
      action: 'cancel',
    });
    expect(elicit).toHaveBeenCalledTimes(1);
  });

  it('relays a URL-mode question', async () => {
    const client = await connect(era);
    const { asked, elicit } = answering({ action: 'accept' });
    expect(json(await client.callTool('open_link', {}, { elicit }))).toEqual({ action: 'accept' });
    expect(asked).toEqual([
      expect.objectContaining({
        mode: 'url',
        message: 'Sign in to continue',
        url: 'https://example.com/connect',
      }),
    ]);
  });

  it('reports progress in order with onProgress, and sends no token without it', async () => {
    const client = await connect(era);
    const seen: CallProgress[] = [];
    const result = await client.callTool('progress', {}, { onProgress: (p) => seen.push(p) });
    expect((result.content[0] as { text: string }).text).toBe('done');
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    expect(json(await client.callTool('progress', { echoToken: true }))).toEqual({ token: null });
  });
});

describe('elicitation of a 2025 HTTP upstream outside its calls', () => {
  it('answers cancel to a question on the standalone stream, even while a call is in flight', async () => {
    const client = await connect('stateful');
    const elicit = vi.fn(async () => ({ action: 'accept', content: { confirm: true } }) as const);
    const result = await client.callTool('ask_aside', {}, { elicit });
    expect(json(result)).toEqual({ action: 'cancel' });
    expect(elicit).not.toHaveBeenCalled();
  });
});

describe('elicitation of a stateless 2025 HTTP upstream', () => {
  it('ends the call with the server’s own error: it cannot ask, and nothing hangs', async () => {
    const client = await connect('legacy');
    const elicit = vi.fn(async () => ({ action: 'accept' }) as const);
    const result = await client.callTool('confirm_delete', {}, { elicit });
    expect(result.isError).toBe(true);
    expect(elicit).not.toHaveBeenCalled();
  });
});
