import { describe, expect, it } from 'vitest';
import type {
  ElicitationAnswer,
  ElicitationRequest,
  RelayedElicitation,
} from '../contracts/elicitation.js';
import { createPassThroughTracer } from '../telemetry/pass-through.js';
import type { LiveSession } from './provider-contract.js';
import { MAX_ELICITATION_MESSAGE, MAX_WAITING_ELICITATIONS } from './turn-elicitations.js';
import { TurnRunner } from './turn-runner.js';
import type { ElicitationAsk, StopReason, TurnEvent, TurnSink } from './turn-types.js';

type Elicitation = Extract<TurnEvent, { type: 'elicitation' }>;

const CONFIRM: ElicitationRequest = {
  mode: 'form',
  message: 'Delete 40 files?',
  requestedSchema: {
    type: 'object',
    properties: { confirm: { type: 'boolean' } },
    required: ['confirm'],
  },
};

function relayed(request: ElicitationRequest, tool = 'files_confirm_delete'): RelayedElicitation {
  return { agentSessionId: 's1', connector: 'files', tool, request, since: 1_000 };
}

/** A turn whose agent does `script`; `board` is what the connector server relayed. */
function runTurn(
  script: (sink: TurnSink) => Promise<StopReason>,
  { board = [] as RelayedElicitation[], timeoutMs = 60_000 } = {},
) {
  const events: TurnEvent[] = [];
  const wakers = new Set<() => void>();
  const handle: LiveSession = { providerSessionId: 'p1', turn: (_prompt, sink) => script(sink) };
  const runner = new TurnRunner(
    handle,
    [{ type: 'text', text: 'go' }],
    (event) => {
      events.push(event);
      for (const wake of [...wakers]) wake();
    },
    {
      permissions: 'ask',
      permissionTimeoutMs: timeoutMs,
      provider: 'fake',
      session: 's1',
      tracer: createPassThroughTracer(),
      proof: { forms: [], served: () => false },
      relayedElicitations: () => board,
    },
  );
  const nextElicitation = (count = 1) =>
    new Promise<Elicitation>((resolve) => {
      const check = () => {
        const found = events.filter((event): event is Elicitation => event.type === 'elicitation');
        if (found.length >= count) {
          wakers.delete(check);
          resolve(found[count - 1]!);
        }
      };
      wakers.add(check);
      check();
    });
  return { runner, events, nextElicitation };
}

/** An agent that relays `ask` once and records the answer it was handed. */
function elicitOnce(ask: ElicitationAsk, answers: ElicitationAnswer[]) {
  return async (sink: TurnSink): Promise<StopReason> => {
    answers.push(await sink.elicit(ask));
    return 'end_turn';
  };
}

describe('elicitations of a turn', () => {
  it('names the connector and tool from the board when exactly one entry for the session asks the same, and hands the agent the answer', async () => {
    const answers: ElicitationAnswer[] = [];
    const turn = runTurn(elicitOnce({ server: 'connector', request: CONFIRM }, answers), {
      board: [relayed(CONFIRM)],
    });
    const asked = await turn.nextElicitation();
    expect(asked).toEqual({
      type: 'elicitation',
      requestId: asked.requestId,
      server: 'connector',
      connector: 'files',
      tool: 'files_confirm_delete',
      mode: 'form',
      message: 'Delete 40 files?',
      requestedSchema: CONFIRM.requestedSchema,
    });
    expect(
      turn.runner.answerElicitation(asked.requestId, {
        action: 'accept',
        content: { confirm: true },
      }),
    ).toBe(true);
    await turn.runner.done;
    expect(answers).toEqual([{ action: 'accept', content: { confirm: true } }]);
    expect(turn.events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
  });

  it('picks the one board entry asking the same when several are pending', async () => {
    const other: ElicitationRequest = { ...CONFIRM, message: 'Which account?' };
    const turn = runTurn(elicitOnce({ server: 'connector', request: CONFIRM }, []), {
      board: [relayed(other, 'mail_pick'), relayed(CONFIRM)],
    });
    const asked = await turn.nextElicitation();
    expect(asked).toMatchObject({ connector: 'files', tool: 'files_confirm_delete' });
    turn.runner.answerElicitation(asked.requestId, { action: 'decline' });
    await turn.runner.done;
  });

  it.each([
    ['no board entry', 'connector', [] as RelayedElicitation[]],
    [
      'two board entries asking the same',
      'connector',
      [relayed(CONFIRM, 'a_delete'), relayed(CONFIRM, 'b_delete')],
    ],
    [
      'several board entries none of which asks the same',
      'connector',
      [relayed({ ...CONFIRM, message: 'x' }), relayed({ ...CONFIRM, message: 'y' })],
    ],
    [
      'a single board entry asking something else',
      'connector',
      [relayed({ ...CONFIRM, message: 'Delete 41 files?' })],
    ],
    [
      'a single board entry with another schema',
      'connector',
      [
        relayed({
          ...CONFIRM,
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        }),
      ],
    ],
    [
      'a single board entry of another mode',
      'connector',
      [relayed({ mode: 'url', message: CONFIRM.message, url: 'https://files.example/ok' })],
    ],
    ['another server, even with one board entry', 'github', [relayed(CONFIRM)]],
  ])('names no connector or tool with %s', async (_what, server, board) => {
    const turn = runTurn(elicitOnce({ server, request: CONFIRM }, []), { board });
    const asked = await turn.nextElicitation();
    expect(asked.server).toBe(server);
    expect(asked).not.toHaveProperty('connector');
    expect(asked).not.toHaveProperty('tool');
    turn.runner.answerElicitation(asked.requestId, { action: 'cancel' });
    await turn.runner.done;
  });

  it('proves a single URL-mode board entry only for the same URL', async () => {
    const request: ElicitationRequest = {
      mode: 'url',
      message: 'Sign in to the bank',
      url: 'https://bank.example/consent?x=1',
    };
    const board = [relayed(request, 'bank_sign_in')];
    const same = runTurn(elicitOnce({ server: 'connector', request }, []), { board });
    const provenAsk = await same.nextElicitation();
    expect(provenAsk).toMatchObject({ connector: 'files', tool: 'bank_sign_in' });
    same.runner.answerElicitation(provenAsk.requestId, { action: 'cancel' });
    await same.runner.done;

    const other = runTurn(
      elicitOnce(
        { server: 'connector', request: { ...request, url: 'https://evil.example/consent' } },
        [],
      ),
      { board },
    );
    const unproven = await other.nextElicitation();
    expect(unproven).not.toHaveProperty('connector');
    expect(unproven).not.toHaveProperty('tool');
    other.runner.answerElicitation(unproven.requestId, { action: 'cancel' });
    await other.runner.done;
  });

  it(`keeps at most ${MAX_WAITING_ELICITATIONS} waiting, cancelling one more at once without showing it`, async () => {
    const answers: (ElicitationAnswer | undefined)[] = [];
    let askOneMore!: () => Promise<ElicitationAnswer>;
    const turn = runTurn(async (sink) => {
      askOneMore = () => sink.elicit({ server: 'connector', request: CONFIRM });
      const asked = Array.from({ length: MAX_WAITING_ELICITATIONS + 1 }, (_, i) =>
        sink
          .elicit({ server: 'connector', request: { ...CONFIRM, message: `Question ${i}?` } })
          .then((answer) => {
            answers[i] = answer;
          }),
      );
      await Promise.all(asked);
      return 'end_turn';
    });
    const last = await turn.nextElicitation(MAX_WAITING_ELICITATIONS);
    // The one over the cap was answered at once, and only the first ones were shown.
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers[MAX_WAITING_ELICITATIONS]).toEqual({ action: 'cancel' });
    expect(answers.filter(Boolean)).toHaveLength(1);
    const shown = turn.events.filter((event): event is Elicitation => event.type === 'elicitation');
    expect(shown.map((event) => event.message)).toEqual(
      Array.from({ length: MAX_WAITING_ELICITATIONS }, (_, i) => `Question ${i}?`),
    );
    expect(turn.runner.waitingElicitations()).toHaveLength(MAX_WAITING_ELICITATIONS);
    expect(await askOneMore()).toEqual({ action: 'cancel' });

    // An answer frees its place for the next question.
    expect(turn.runner.answerElicitation(last.requestId, { action: 'decline' })).toBe(true);
    const freed = askOneMore();
    const next = await turn.nextElicitation(MAX_WAITING_ELICITATIONS + 1);
    expect(next.message).toBe(CONFIRM.message);
    expect(turn.runner.answerElicitation(next.requestId, { action: 'decline' })).toBe(true);
    expect(await freed).toEqual({ action: 'decline' });

    for (const event of shown.slice(0, -1)) {
      turn.runner.answerElicitation(event.requestId, { action: 'cancel' });
    }
    await turn.runner.done;
    expect(answers[MAX_WAITING_ELICITATIONS - 1]).toEqual({ action: 'decline' });
    expect(turn.runner.waitingElicitations()).toEqual([]);
  });

  it('relays a URL-mode question with its URL, and hands back no content with its accept', async () => {
    const answers: ElicitationAnswer[] = [];
    const request: ElicitationRequest = {
      mode: 'url',
      message: 'Sign in to the bank',
      url: 'https://bank.example/consent?x=1',
      elicitationId: 'e-1',
    };
    const turn = runTurn(elicitOnce({ server: 'bank', request }, answers));
    const asked = await turn.nextElicitation();
    expect(asked).toMatchObject({ mode: 'url', url: 'https://bank.example/consent?x=1' });
    expect(asked).not.toHaveProperty('requestedSchema');
    turn.runner.answerElicitation(asked.requestId, { action: 'accept', content: { a: 'b' } });
    await turn.runner.done;
    expect(answers).toEqual([{ action: 'accept' }]);
  });

  it('hands back no content with a decline', async () => {
    const answers: ElicitationAnswer[] = [];
    const turn = runTurn(elicitOnce({ server: 'connector', request: CONFIRM }, answers));
    const asked = await turn.nextElicitation();
    turn.runner.answerElicitation(asked.requestId, { action: 'decline', content: { x: 1 } });
    await turn.runner.done;
    expect(answers).toEqual([{ action: 'decline' }]);
  });

  it('cancels an unanswered elicitation after the permission timeout, says so, and the turn goes on', async () => {
    const answers: ElicitationAnswer[] = [];
    const turn = runTurn(
      async (sink) => {
        answers.push(await sink.elicit({ server: 'connector', request: CONFIRM }));
        sink.emit({ type: 'text', text: 'carried on' });
        return 'end_turn';
      },
      { timeoutMs: 30 },
    );
    const asked = await turn.nextElicitation();
    await turn.runner.done;
    expect(answers).toEqual([{ action: 'cancel' }]);
    expect(turn.events).toContainEqual(
      expect.objectContaining({ type: 'error', code: 'TUTTI_ERR_TURN_ELICITATION_TIMEOUT' }),
    );
    expect(turn.events.slice(-2)).toEqual([
      { type: 'text', text: 'carried on' },
      { type: 'end', stopReason: 'end_turn' },
    ]);
    expect(turn.runner.answerElicitation(asked.requestId, { action: 'accept' })).toBe(false);
  });

  it('cancels the waiting elicitations of a cancelled turn, and each one asked after', async () => {
    const answers: ElicitationAnswer[] = [];
    const turn = runTurn(async (sink) => {
      answers.push(await sink.elicit({ server: 'connector', request: CONFIRM }));
      answers.push(await sink.elicit({ server: 'connector', request: CONFIRM }));
      return sink.signal.aborted ? 'cancelled' : 'end_turn';
    });
    const asked = await turn.nextElicitation();
    expect(turn.runner.cancel()).toBe(true);
    await turn.runner.done;
    expect(answers).toEqual([{ action: 'cancel' }, { action: 'cancel' }]);
    expect(turn.events.filter((event) => event.type === 'elicitation')).toHaveLength(1);
    expect(turn.runner.answerElicitation(asked.requestId, { action: 'accept' })).toBe(false);
    expect(turn.runner.waitingElicitations()).toEqual([]);
  });

  it('stops waiting when the agent withdraws the question', async () => {
    const withdraw = new AbortController();
    const answers: ElicitationAnswer[] = [];
    const turn = runTurn(
      elicitOnce({ server: 'connector', request: CONFIRM, signal: withdraw.signal }, answers),
    );
    const asked = await turn.nextElicitation();
    expect(turn.runner.waitingElicitations().map((entry) => entry.requestId)).toEqual([
      asked.requestId,
    ]);
    withdraw.abort();
    await turn.runner.done;
    expect(answers).toEqual([{ action: 'cancel' }]);
    expect(turn.runner.answerElicitation(asked.requestId, { action: 'accept' })).toBe(false);
  });

  it.each([
    ['a URL that is not http(s)', { mode: 'url', message: 'Open', url: 'javascript:alert(1)' }],
    ['a URL mode without a URL', { mode: 'url', message: 'Open' }],
    ['a form without a schema', { mode: 'form', message: 'Name?' }],
    [
      'a form whose schema is not an object schema',
      { mode: 'form', message: 'Name?', requestedSchema: { type: 'string' } },
    ],
    ['a message over the bound', { ...CONFIRM, message: 'x'.repeat(MAX_ELICITATION_MESSAGE + 1) }],
    ['an unknown mode', { ...CONFIRM, mode: 'openai/form' }],
  ])('answers %s with cancel at once, and never asks the host', async (_what, request) => {
    const answers: ElicitationAnswer[] = [];
    const turn = runTurn(
      elicitOnce({ server: 'x', request: request as unknown as ElicitationRequest }, answers),
    );
    await turn.runner.done;
    expect(answers).toEqual([{ action: 'cancel' }]);
    expect(turn.events.some((event) => event.type === 'elicitation')).toBe(false);
  });

  it('relays only the members the daemon relays', async () => {
    const request = {
      ...CONFIRM,
      _meta: { secret: 'x' },
      extra: 'y',
    } as unknown as ElicitationRequest;
    const turn = runTurn(elicitOnce({ server: 'x', request }, []));
    const asked = await turn.nextElicitation();
    expect(Object.keys(asked).sort()).toEqual(
      ['message', 'mode', 'requestId', 'requestedSchema', 'server', 'type'].sort(),
    );
    turn.runner.answerElicitation(asked.requestId, { action: 'cancel' });
    await turn.runner.done;
  });
});
