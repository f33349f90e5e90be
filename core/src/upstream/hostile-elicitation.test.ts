import { describe, expect, it, vi } from 'vitest';
import type {
  ElicitationAnswer,
  ElicitationRequest,
  UpstreamCallResult,
} from '../contracts/index.js';
import { stdioUpstreamsPerTest } from '@tutti/test-kit/core/stdio-upstreams-per-test';
import type { UpstreamConnection } from './types.js';

const openStdio = stdioUpstreamsPerTest();

function start(): Promise<UpstreamConnection> {
  return openStdio('asking-server.mjs');
}

function json(result: UpstreamCallResult): unknown {
  return JSON.parse((result.content[0] as { text: string }).text);
}

/** What the upstream got back for the questions `params` asked (`times` copies). */
async function ask(
  upstream: UpstreamConnection,
  params: unknown,
  elicit?: (request: ElicitationRequest) => Promise<ElicitationAnswer>,
  times = 1,
) {
  const result = await upstream.callTool('ask', { params, times }, { elicit });
  return json(result) as { result?: unknown; error?: { code: number; message: string } }[];
}

const schema = { type: 'object', properties: { name: { type: 'string' } } };

describe('a hostile upstream asking', () => {
  it('refuses malformed and oversized questions with -32602, and the person never sees them', async () => {
    const upstream = await start();
    const elicit = vi.fn(async () => ({ action: 'accept' }) as const);
    const malformed = [
      null,
      'ask',
      { message: 3, requestedSchema: schema },
      { mode: 'form', message: 'no schema' },
      { mode: 'form', message: 'not an object schema', requestedSchema: { type: 'string' } },
      { mode: 'weird', message: 'x', requestedSchema: schema },
      { mode: 'url', message: 'no url' },
      { mode: 'url', message: 'script', url: 'javascript:alert(1)' },
      { mode: 'url', message: 'file', url: 'file:///etc/passwd' },
      { message: 'x'.repeat(200_000), requestedSchema: schema },
      { message: 'huge schema', requestedSchema: { ...schema, description: 'y'.repeat(100_000) } },
    ];
    for (const params of malformed) {
      const [answer] = await ask(upstream, params, elicit);
      expect(answer, JSON.stringify(params).slice(0, 80)).toEqual({
        error: { code: -32602, message: 'Invalid elicitation request' },
      });
    }
    expect(elicit).not.toHaveBeenCalled();
    expect(json(await upstream.callTool('hello', {}))).toMatchObject({
      protocolVersion: '2025-11-25',
    });
  });

  it("relays only the request's own members: no _meta, nothing extra", async () => {
    const upstream = await start();
    const asked: ElicitationRequest[] = [];
    const elicit = async (request: ElicitationRequest) => {
      asked.push(request);
      return { action: 'accept', content: { name: 'Ada' } } as const;
    };
    const params = {
      message: 'Your name?',
      requestedSchema: schema,
      _meta: { secret: 'upstream-only' },
      extra: { also: 'not relayed' },
    };
    const [answer] = await ask(upstream, params, elicit);
    expect(answer).toEqual({ result: { action: 'accept', content: { name: 'Ada' } } });
    expect(asked).toEqual([{ mode: 'form', message: 'Your name?', requestedSchema: schema }]);
  });

  it('sends an answer outside the spec as cancel, and drops content that is not asked for', async () => {
    const upstream = await start();
    const answers: unknown[] = [
      { action: 'accept', content: { nested: { object: true } } },
      { action: 'accept', content: { list: [1, 2] } },
      { action: 'maybe' },
      'accept',
      { action: 'decline', content: { name: 'kept out' } },
      { action: 'accept', content: { name: 'Ada', count: 2, ok: true, tags: ['a', 'b'] } },
    ];
    const got = [];
    for (const answer of answers) {
      const elicit = async () => answer as ElicitationAnswer;
      got.push((await ask(upstream, { message: 'q', requestedSchema: schema }, elicit))[0]);
    }
    expect(got).toEqual([
      { result: { action: 'cancel' } },
      { result: { action: 'cancel' } },
      { result: { action: 'cancel' } },
      { result: { action: 'cancel' } },
      { result: { action: 'decline' } },
      {
        result: {
          action: 'accept',
          content: { name: 'Ada', count: 2, ok: true, tags: ['a', 'b'] },
        },
      },
    ]);
  });

  it('answers cancel once when the call ends first, and never sends the late answer', async () => {
    const upstream = await start();
    let answerLater: (answer: ElicitationAnswer) => void = () => {};
    const elicit = vi.fn(
      () => new Promise<ElicitationAnswer>((resolve) => (answerLater = resolve)),
    );
    const result = await upstream.callTool(
      'ask_and_go',
      { params: { message: 'q', requestedSchema: schema } },
      { elicit },
    );
    expect(json(result)).toBe('gone');
    expect(elicit).toHaveBeenCalledTimes(1);
    let late: unknown[] = [];
    while (late.length === 0) late = json(await upstream.callTool('late_answers', {})) as unknown[];
    expect(late).toEqual([{ action: 'cancel' }]);
    answerLater({ action: 'accept', content: { name: 'too late' } });
    await upstream.callTool('late_answers', {});
    expect(json(await upstream.callTool('late_answers', {}))).toEqual([{ action: 'cancel' }]);
  });

  it('lets at most 8 questions of one call wait on the person, and cancels the rest', async () => {
    const upstream = await start();
    const waiting: (() => void)[] = [];
    const elicit = vi.fn(
      () =>
        new Promise<ElicitationAnswer>((resolve) => {
          waiting.push(() => resolve({ action: 'decline' }));
          // The upstream wrote its 20 questions at once: the 12 beyond the cap were answered
          // in the same turn as the 8th was relayed.
          if (waiting.length === 8)
            setImmediate(() => {
              for (const go of waiting) go();
            });
        }),
    );
    const answers = await ask(upstream, { message: 'q', requestedSchema: schema }, elicit, 20);
    const actions = answers.map((answer) => (answer.result as ElicitationAnswer).action);
    expect(elicit).toHaveBeenCalledTimes(8);
    expect(actions.filter((action) => action === 'decline')).toHaveLength(8);
    expect(actions.filter((action) => action === 'cancel')).toHaveLength(12);
  });
});
