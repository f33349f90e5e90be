import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTokenService, type TokenService, type TokenSession } from '../auth/index.js';
import type { ElicitationRequest } from '../contracts/index.js';
import type { CallStream } from './call-stream.js';
import { createElicitationBoard, type ElicitationBoard } from './elicitation-board.js';
import {
  createElicitationRelay,
  declaredModes,
  type ElicitationRelay,
  FORM_MODE,
  relayedRequest,
  URL_MODE,
} from './elicitation-relay.js';
import { CallCancellation } from './in-flight-calls.js';

const FORM: ElicitationRequest = {
  mode: 'form',
  message: 'Confirm?',
  requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
};

/** A stream that records what it was sent; `open` false plays a client that went away. */
function recordingStream(open = true): CallStream & { sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  return {
    sent,
    started: false,
    send(message) {
      if (open) sent.push(message as Record<string, unknown>);
      return open;
    },
    end: () => undefined,
    seal: () => undefined,
  };
}

describe('declaredModes', () => {
  it.each([
    [{ capabilities: { elicitation: {} } }, FORM_MODE],
    [{ capabilities: { elicitation: { form: {} } } }, FORM_MODE],
    [{ capabilities: { elicitation: { url: {} } } }, URL_MODE],
    [{ capabilities: { elicitation: { form: {}, url: {} } } }, FORM_MODE | URL_MODE],
    [{ capabilities: { elicitation: { form: true } } }, 0],
    [{ capabilities: { elicitation: true } }, 0],
    [{ capabilities: { sampling: {}, roots: {} } }, 0],
    [{ capabilities: null }, 0],
    [null, 0],
  ])('reads %j as %i', (params, modes) => {
    expect(declaredModes(params)).toBe(modes);
  });
});

describe('relayedRequest', () => {
  it('keeps exactly the members of the request, whatever else the upstream sent', () => {
    const extra = { ...FORM, _meta: { secret: 1 }, task: { ttl: 1 } } as ElicitationRequest;
    expect(relayedRequest(extra)).toEqual(FORM);
    const url = {
      mode: 'url',
      message: 'Open',
      url: 'https://x.example',
      elicitationId: 'e',
      requestedSchema: {},
    } as ElicitationRequest;
    expect(relayedRequest(url)).toEqual({
      mode: 'url',
      message: 'Open',
      url: 'https://x.example',
      elicitationId: 'e',
    });
  });

  it.each([
    [{ mode: 'form', message: 'm' }],
    [{ mode: 'url', message: 'm' }],
    [{ mode: 'sampling', message: 'm', requestedSchema: {} }],
    [{ mode: 'form', message: 3, requestedSchema: {} }],
  ])('refuses the malformed %j', (request) => {
    expect(relayedRequest(request as unknown as ElicitationRequest)).toBeUndefined();
  });
});

describe('the elicitation relay', () => {
  let tokens: TokenService;
  let board: ElicitationBoard;
  let relay: ElicitationRelay;
  let session: TokenSession;

  function create(options: { maxPerToken?: number; maxRemembered?: number } = {}) {
    relay = createElicitationRelay({
      tokens,
      board,
      timeoutMs: 60_000,
      logger: pino({ level: 'silent' }),
      ...options,
    });
  }

  beforeEach(() => {
    tokens = createTokenService();
    session = tokens.verify(tokens.issue('ws', 's1'))!;
    board = createElicitationBoard();
    create();
  });

  afterEach(() => relay.close());

  const callOf = (stream: CallStream, signal = new CallCancellation(), modes = FORM_MODE) =>
    relay.elicitFor({
      session,
      signal,
      stream,
      modes,
      target: () => ({ connector: 'ask', tool: 'ask_confirm' }),
    });

  it('asks on the stream with a fresh id each time, and resolves with the matched answer', async () => {
    const stream = recordingStream();
    const elicit = callOf(stream);
    const first = elicit(FORM);
    const second = elicit(FORM);
    const [a, b] = stream.sent.map((message) => message.id as string);
    expect(a).not.toBe(b);
    expect(stream.sent[0]).toEqual({
      jsonrpc: '2.0',
      id: a,
      method: 'elicitation/create',
      params: FORM,
    });
    expect(board.pendingFor('s1').map((r) => r.tool)).toEqual(['ask_confirm', 'ask_confirm']);
    expect(relay.answer(session.tokenId, { id: b!, result: { action: 'decline' } })).toBe(true);
    expect(
      relay.answer(session.tokenId, {
        id: a!,
        result: { action: 'accept', content: { confirm: true } },
      }),
    ).toBe(true);
    expect(await first).toEqual({ action: 'accept', content: { confirm: true } });
    expect(await second).toEqual({ action: 'decline' });
    expect(board.size).toBe(0);
  });

  it('answers cancel at once for a mode the caller did not declare, or a gone client', async () => {
    expect(
      await callOf(recordingStream())({
        ...FORM,
        mode: 'url',
        url: 'https://x',
        elicitationId: 'e',
      }),
    ).toEqual({ action: 'cancel' });
    expect(await callOf(recordingStream(false))(FORM)).toEqual({ action: 'cancel' });
    const aborted = new CallCancellation();
    aborted.abort('disconnected');
    expect(await callOf(recordingStream(), aborted)(FORM)).toEqual({ action: 'cancel' });
    expect(board.size).toBe(0);
  });

  it('answers cancel when the call is aborted while the person thinks', async () => {
    const signal = new CallCancellation();
    const pending = callOf(recordingStream(), signal)(FORM);
    signal.abort('cancelled');
    expect(await pending).toEqual({ action: 'cancel' });
    expect(board.size).toBe(0);
  });

  it('withdraws what is still asked when the call ends without the answer, freeing its slot', async () => {
    const stream = recordingStream();
    const elicit = callOf(stream);
    const asked = elicit(FORM);
    const id = stream.sent[0]!.id;
    expect(board.size).toBe(1);
    elicit.end('the call ended');
    expect(await asked).toEqual({ action: 'cancel' });
    expect(stream.sent[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'the call ended' },
    });
    expect(board.size).toBe(0);
    // A late answer matches nothing; the token's slot is free for its next question.
    expect(relay.answer(session.tokenId, { id: id as string, result: { action: 'accept' } })).toBe(
      false,
    );
    void elicit(FORM);
    expect(board.size).toBe(1);
  });

  it('gives a URL question of a 2026-07-28 upstream (no elicitationId) the relay id the 2025 wire needs', async () => {
    const stream = recordingStream();
    const elicit = callOf(stream, new CallCancellation(), URL_MODE);
    void elicit({ mode: 'url', message: 'Sign in', url: 'https://x.example/login' });
    const sent = stream.sent[0]!;
    expect(sent.params).toEqual({
      mode: 'url',
      message: 'Sign in',
      url: 'https://x.example/login',
      elicitationId: sent.id,
    });
    expect(board.pendingFor('s1')[0]!.request.elicitationId).toBe(sent.id);
  });

  it('answers cancel past the per-token limit', async () => {
    relay.close();
    create({ maxPerToken: 1 });
    const stream = recordingStream();
    const elicit = callOf(stream);
    void elicit(FORM);
    expect(await elicit(FORM)).toEqual({ action: 'cancel' });
    expect(stream.sent).toHaveLength(1);
  });

  it('matches by token and string id only', () => {
    const stream = recordingStream();
    void callOf(stream)(FORM);
    const id = stream.sent[0]!.id as string;
    const other = tokens.verify(tokens.issue('ws', 's2'))!;
    expect(relay.answer(other.tokenId, { id, result: { action: 'accept' } })).toBe(false);
    expect(relay.answer(session.tokenId, { id: 1, result: { action: 'accept' } })).toBe(false);
    expect(relay.answer(session.tokenId, { id: null })).toBe(false);
    expect(board.size).toBe(1);
  });

  it('remembers capabilities per token, bounded, and forgets a revoked token', () => {
    relay.close();
    create({ maxRemembered: 2 });
    const second = tokens.verify(tokens.issue('ws', 's2'))!;
    const third = tokens.verify(tokens.issue('ws', 's3'))!;
    const declared = { capabilities: { elicitation: {} } };
    relay.remember(session.tokenId, declared);
    relay.remember(second.tokenId, declared);
    relay.remember(third.tokenId, declared);
    expect(relay.modesOf(session.tokenId)).toBe(0);
    expect(relay.modesOf(third.tokenId)).toBe(FORM_MODE);
    tokens.revokeSession('ws', 's3');
    expect(relay.modesOf(third.tokenId)).toBe(0);
    expect(relay.modesOf(second.tokenId)).toBe(FORM_MODE);
  });
});
