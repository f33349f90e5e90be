/**
 * What the raw stdio path does with an upstream's questions and progress, message by
 * message (the real process is in stdio-elicitation.test.ts): routing by the one call in
 * flight, a question just after a cancelled call, answers sent once with the id received.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallProgress, ElicitationAnswer } from '../contracts/index.js';
import { createRawToolCalls, RAW_DRAIN_MS, type RawToolCalls } from './raw-tool-calls.js';

type Sent = JSONRPCMessage & {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
};

let calls: RawToolCalls | undefined;
afterEach(() => {
  calls?.closeAll(new Error('test over'));
  vi.useRealTimers();
});

function setup() {
  const sent: Sent[] = [];
  const onAmbiguousElicitation = vi.fn();
  calls = createRawToolCalls({
    target: 'node',
    send: async (message) => {
      sent.push(message as Sent);
    },
    timeoutMs: 600_000,
    onAmbiguousElicitation,
  });
  return { raw: calls, sent, onAmbiguousElicitation };
}

const question = (id: string | number) => ({
  jsonrpc: '2.0',
  id,
  method: 'elicitation/create',
  params: { message: 'Proceed?', requestedSchema: { type: 'object', properties: {} } },
});

/** Lets the microtasks of an answer run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('questions and progress on the raw path', () => {
  it('answers a question with the id it came with, once, on the same transport', async () => {
    const { raw, sent } = setup();
    const elicit = vi.fn(async (): Promise<ElicitationAnswer> => ({ action: 'decline' }));
    raw.call('t', {}, { elicit }).catch(() => {});
    expect(raw.intercept(question(7))).toBe(true);
    await settle();
    expect(sent.slice(1)).toEqual([{ jsonrpc: '2.0', id: 7, result: { action: 'decline' } }]);
  });

  it('cancels a question that comes just after a cancelled call, instead of giving it to the next one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { raw, sent } = setup();
    const controller = new AbortController();
    raw.call('first', {}, { signal: controller.signal }).catch(() => {});
    controller.abort('stop');
    const elicit = vi.fn(async (): Promise<ElicitationAnswer> => ({ action: 'accept' }));
    raw.call('second', {}, { elicit }).catch(() => {});
    raw.intercept(question('q1'));
    await settle();
    expect(elicit).not.toHaveBeenCalled();
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: 'q1', result: { action: 'cancel' } });
    // Once the cancelled call drained, the one left in flight gets its questions.
    vi.setSystemTime(Date.now() + RAW_DRAIN_MS + 1);
    raw.intercept(question('q2'));
    await settle();
    expect(elicit).toHaveBeenCalledTimes(1);
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: 'q2', result: { action: 'accept' } });
  });

  it('tells once per upstream that a question came with several calls in flight', async () => {
    const { raw, onAmbiguousElicitation } = setup();
    raw.call('a', {}).catch(() => {});
    raw.call('b', {}).catch(() => {});
    raw.intercept(question(1));
    raw.intercept(question(2));
    expect(onAmbiguousElicitation).toHaveBeenCalledTimes(1);
  });

  it('answers cancel to a question with no call in flight', async () => {
    const { raw, sent } = setup();
    raw.intercept(question('lonely'));
    await settle();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 'lonely', result: { action: 'cancel' } }]);
  });

  it('routes progress by its token, in order, only while the call is pending', async () => {
    const { raw, sent } = setup();
    const seen: CallProgress[] = [];
    const pending = raw.call('t', {}, { onProgress: (progress) => seen.push(progress) });
    const token = (sent[0]!.params!._meta as { progressToken: string }).progressToken;
    expect(token).toBe(sent[0]!.id);
    const progress = (params: Record<string, unknown>) =>
      raw.intercept({ jsonrpc: '2.0', method: 'notifications/progress', params });
    expect(progress({ progressToken: token, progress: 1, total: 2, message: 'half' })).toBe(true);
    expect(progress({ progressToken: token, progress: 'two' })).toBe(true);
    expect(progress({ progressToken: token, progress: 2, total: 2 })).toBe(true);
    // A token that is not one of this path's is the SDK client's business.
    expect(progress({ progressToken: 0, progress: 1 })).toBe(false);
    raw.intercept({ jsonrpc: '2.0', id: token, result: { content: [] } });
    await pending;
    progress({ progressToken: token, progress: 3 });
    expect(seen).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2 },
    ]);
  });

  it('sends no progress token without onProgress', () => {
    const { raw, sent } = setup();
    raw.call('t', {}, { meta: { traceparent: 'x' } }).catch(() => {});
    expect(sent[0]!.params).toEqual({ name: 't', arguments: {}, _meta: { traceparent: 'x' } });
  });

  it('leaves ping and the requests it does not answer to the SDK client', () => {
    const { raw } = setup();
    raw.call('t', {}).catch(() => {});
    expect(raw.intercept({ jsonrpc: '2.0', id: 3, method: 'ping' })).toBe(false);
    expect(raw.intercept({ jsonrpc: '2.0', id: 4, method: 'sampling/createMessage' })).toBe(false);
    expect(raw.intercept({ jsonrpc: '2.0', id: 5, method: 'roots/list' })).toBe(false);
    // A question without a usable id cannot be answered: the SDK client says so.
    expect(raw.intercept({ ...question(1), id: { odd: true } })).toBe(false);
  });
});
