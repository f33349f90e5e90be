import { type JSONRPCMessage, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError, type TuttiError } from '../errors/index.js';
import { createRawToolCalls, type RawToolCalls } from './raw-tool-calls.js';

type Sent = JSONRPCMessage & { id?: string; method?: string; params?: Record<string, unknown> };

let calls: RawToolCalls | undefined;
afterEach(() => calls?.closeAll(new Error('test over')));

/** Raw calls whose sent messages land in `sent`; `answer` feeds a reply back in. */
function setup(timeoutMs = 600_000) {
  const sent: Sent[] = [];
  calls = createRawToolCalls({
    target: 'node',
    send: async (message) => {
      sent.push(message as Sent);
    },
    timeoutMs,
  });
  const raw = calls;
  const answer = (reply: Record<string, unknown>, index = sent.length - 1) =>
    raw.intercept({ jsonrpc: '2.0', id: sent[index]!.id, ...reply });
  return { raw, sent, answer };
}

describe('createRawToolCalls', () => {
  it('sends tools/call with a string id and the arguments unchanged', async () => {
    const { raw, sent, answer } = setup();
    const args = { nested: { list: [1, 'two', null] }, 'odd key': 'x' };
    const pending = raw.call('echo', args);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ jsonrpc: '2.0', method: 'tools/call' });
    expect(typeof sent[0]!.id).toBe('string');
    expect(sent[0]!.params).toEqual({ name: 'echo', arguments: args });
    expect(sent[0]!.params!.arguments).toBe(args);
    answer({ result: { content: [] } });
    await pending;
    raw.call('no_args', undefined).catch(() => {});
    expect(sent[1]!.params).toEqual({ name: 'no_args' });
  });

  it('resolves with the very result object when it is a plain tool result', async () => {
    const { raw, answer } = setup();
    const pending = raw.call('t', {});
    const result = {
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: { sum: 7 },
      isError: true,
      extra: { kept: 1 },
    };
    expect(answer({ result })).toBe(true);
    expect(await pending).toBe(result);
  });

  it('gives other results the SDK schema: _meta kept, resultType and unknown block keys dropped, content defaulted', async () => {
    const { raw, answer } = setup();
    const withMeta = raw.call('t', {});
    answer({
      result: {
        content: [{ type: 'text', text: 'x', stray: 1 }],
        _meta: { 'example.com/k': 'v' },
        resultType: 'complete',
      },
    });
    expect(await withMeta).toEqual({
      content: [{ type: 'text', text: 'x' }],
      _meta: { 'example.com/k': 'v' },
    });
    const noContent = raw.call('t', {});
    answer({ result: { structuredContent: { a: 1 } } });
    expect(await noContent).toEqual({ content: [], structuredContent: { a: 1 } });
  });

  it('rejects a result that is not a tool result with TUTTI_ERR_UPSTREAM_INVALID_RESULT', async () => {
    const { raw, answer } = setup();
    const pending = raw.call('t', {});
    answer({ result: { content: [{ type: 'nonsense' }] } });
    const error = await pending.catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_INVALID_RESULT')).toBe(true);
    expect((error as Error).message).toMatch(
      /^Upstream MCP server "node" answered the call of tool "t" with something that is not an MCP tool result \(/,
    );
  });

  it('rejects a JSON-RPC error answer with TUTTI_ERR_UPSTREAM_CALL_REJECTED carrying that code', async () => {
    const { raw, answer } = setup();
    const pending = raw.call('t', {});
    answer({ error: { code: -32602, message: 'Unknown tool: t' } });
    const error = await pending.catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_CALL_REJECTED')).toBe(true);
    expect((error as TuttiError).details.rpcCode).toBe(-32602);
    expect((error as Error).message).toContain('Unknown tool: t');
  });

  it('sends notifications/cancelled for the request id when the signal aborts', async () => {
    const { raw, sent, answer } = setup();
    const controller = new AbortController();
    const pending = raw.call('slow', {}, { signal: controller.signal });
    const id = sent[0]!.id;
    controller.abort('user stop');
    const error = await pending.catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_CANCELLED')).toBe(true);
    expect(sent[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'user stop' },
    });
    expect(raw.size).toBe(0);
    // A late answer is consumed quietly, not handed to the SDK client.
    expect(answer({ result: { content: [] } }, 0)).toBe(true);
  });

  it('rejects at once, sending nothing, when the signal is already aborted', async () => {
    const { raw, sent } = setup();
    const error = await raw
      .call('t', {}, { signal: AbortSignal.abort('gone') })
      .catch((caught) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_CANCELLED')).toBe(true);
    expect(sent).toEqual([]);
  });

  it('times a call out from the shared sweep and cancels it upstream', async () => {
    const { raw, sent } = setup(40);
    const error = await raw.call('slow', {}).catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_CALL_TIMEOUT')).toBe(true);
    expect(sent[1]).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: sent[0]!.id },
    });
    expect(raw.size).toBe(0);
  });

  it('leaves numeric ids, requests and notifications to the SDK client', () => {
    const { raw } = setup();
    raw.call('t', {}).catch(() => {});
    expect(raw.intercept({ jsonrpc: '2.0', id: 0, result: {} })).toBe(false);
    expect(raw.intercept({ jsonrpc: '2.0', id: 'tutti-1', method: 'ping' })).toBe(false);
    expect(raw.intercept({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })).toBe(
      false,
    );
    expect(raw.intercept({ jsonrpc: '2.0', id: 'other-1', result: {} })).toBe(false);
    expect(raw.intercept(null)).toBe(false);
    expect(raw.size).toBe(1);
  });

  it('rejects every pending call when the connection closes', async () => {
    const { raw } = setup();
    const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    const both = [raw.call('a', {}), raw.call('b', {})].map((call) => call.catch((e) => e));
    raw.closeAll(closed);
    expect(await Promise.all(both)).toEqual([closed, closed]);
    expect(raw.size).toBe(0);
  });

  it('rejects a call whose request could not be sent', async () => {
    const failure = new SdkError(SdkErrorCode.NotConnected, 'Not connected');
    calls = createRawToolCalls({
      target: 'node',
      send: () => Promise.reject(failure),
      timeoutMs: 1000,
    });
    expect(await calls.call('t', {}).catch((caught: unknown) => caught)).toBe(failure);
    expect(calls.size).toBe(0);
  });
});
