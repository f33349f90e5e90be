/**
 * How Claude Code's `onElicitation` reaches the turn, on a query double: with no turn
 * running nobody can be asked (`cancel`); during a turn the question goes to the turn's
 * elicitation answer with only the members the daemon relays, Claude Code's withdrawal
 * signal with it, and the answer comes back as the SDK's `ElicitResult`.
 */
import type { Query, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { ElicitationAnswer, ElicitationAsk, TurnSink } from '@tutti/core';
import { describe, expect, it } from 'vitest';
import { ClaudeTurns } from './claude-turns.js';

/** A query whose messages the test pushes. */
function queryDouble() {
  const queued: SDKMessage[] = [];
  let wake: (() => void) | undefined;
  const query = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queued.length) yield queued.shift()!;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    interrupt: async () => {},
  } as unknown as Query;
  const push = (message: unknown) => {
    queued.push(message as SDKMessage);
    wake?.();
  };
  return { query, push };
}

function sinkAnswering(answer: ElicitationAnswer, asked: ElicitationAsk[]): TurnSink {
  return {
    emit: () => {},
    permission: async () => 'deny',
    elicit: async (ask) => {
      asked.push(ask);
      return answer;
    },
    signal: new AbortController().signal,
    permissions: 'ask',
  };
}

const RESULT = { type: 'result', subtype: 'success', stop_reason: 'end_turn', is_error: false };

describe('Claude turns relay elicitations', () => {
  it('answers cancel when no turn runs', async () => {
    const turns = new ClaudeTurns(queryDouble().query, () => {});
    const result = await turns.elicit(
      { serverName: 'connector', message: 'Delete 40 files?', requestedSchema: { type: 'object' } },
      new AbortController().signal,
    );
    expect(result).toEqual({ action: 'cancel' });
  });

  it('relays a form (the default mode) and hands back the accepted content', async () => {
    const { query, push } = queryDouble();
    const asked: ElicitationAsk[] = [];
    let result: unknown;
    const withdraw = new AbortController();
    const turns = new ClaudeTurns(query, () => {
      void (async () => {
        result = await turns.elicit(
          {
            serverName: 'connector',
            message: 'Delete 40 files?',
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
            title: 'from _meta',
            displayName: 'from _meta',
          },
          withdraw.signal,
        );
        push(RESULT);
      })();
    });
    const sink = sinkAnswering({ action: 'accept', content: { confirm: true } }, asked);
    expect(await turns.turn([{ type: 'text', text: 'go' }], sink)).toBe('end_turn');
    expect(asked).toEqual([
      {
        server: 'connector',
        request: {
          mode: 'form',
          message: 'Delete 40 files?',
          requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
        },
        signal: withdraw.signal,
      },
    ]);
    expect(result).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('relays a URL-mode question with its URL and id, and hands back a decline alone', async () => {
    const { query, push } = queryDouble();
    const asked: ElicitationAsk[] = [];
    let result: unknown;
    const turns = new ClaudeTurns(query, () => {
      void (async () => {
        result = await turns.elicit(
          {
            serverName: 'bank',
            message: 'Sign in',
            mode: 'url',
            url: 'https://bank.example/consent',
            elicitationId: 'e-1',
          },
          new AbortController().signal,
        );
        push(RESULT);
      })();
    });
    await turns.turn([{ type: 'text', text: 'go' }], sinkAnswering({ action: 'decline' }, asked));
    expect(asked[0]?.request).toEqual({
      mode: 'url',
      message: 'Sign in',
      url: 'https://bank.example/consent',
      elicitationId: 'e-1',
    });
    expect(result).toEqual({ action: 'decline' });
  });
});
