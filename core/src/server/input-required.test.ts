/**
 * Multi round-trip `tools/call` on the 2026-07-28 surface, driven with `app.inject()`: an
 * upstream's question answers the call `input_required`, the retry whose `requestState`
 * verifies resumes the parked upstream call, everything else is -32602.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallSignal } from '../contracts/index.js';
import type { ConnectorApp, ConnectorServerOptions } from './connector-app.js';
import {
  type AskingUpstream,
  createFakeUpstream,
  filesUpstream,
  text,
  untilAborted,
} from '@tutti/test-kit/core/fake-upstream';
import {
  createApp,
  createWorld,
  ENVELOPE,
  legacyHeaders,
  type World,
} from '@tutti/test-kit/core/server-world';

const FORM = { elicitation: {} };
const FORM_AND_URL = { elicitation: { form: {}, url: {} } };

type Params = Record<string, unknown>;

/** The JSON-RPC messages of a response: its SSE `data:` frames, or its JSON body. */
function messagesOf(res: { headers: Record<string, unknown>; payload: string }): Params[] {
  if (!String(res.headers['content-type']).startsWith('text/event-stream')) {
    return [JSON.parse(res.payload) as Params];
  }
  return res.payload
    .split('\n\n')
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line) => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as Params);
}

/** The abort of a fake call's signal: resolves with its reason. */
function aborted(signal: CallSignal) {
  return new Promise<unknown>((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

describe('2026-07-28 multi round-trip tools/call', () => {
  let world: World;
  let files: AskingUpstream;
  let server: ConnectorApp;
  let nextId = 1;

  function start(options: Partial<ConnectorServerOptions> = {}) {
    server = createApp(world, options);
  }

  beforeEach(() => {
    world = createWorld();
    files = filesUpstream();
    world.registry.commit('files', 1, files, files.tools);
    start();
  });

  afterEach(async () => {
    server.shutdown();
    await server.app.close();
  });

  /** Posts a modern `tools/call` with `capabilities` (and `params._meta`) in its envelope. */
  function call(
    { _meta, ...params }: Params,
    capabilities: Params = FORM,
    token = world.token,
    id: number = nextId++,
  ) {
    return server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: {
        ...legacyHeaders(token),
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': String(params.name),
      },
      payload: {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          ...params,
          _meta: {
            ...ENVELOPE,
            'io.modelcontextprotocol/clientCapabilities': capabilities,
            ...(_meta as Params | undefined),
          },
        },
      },
    });
  }

  /** Calls `files_delete` on `path` and expects `input_required`: its result. */
  async function parkDelete(path = '/tmp/a', token = world.token) {
    const res = await call({ name: 'files_delete', arguments: { path } }, FORM, token);
    expect(res.statusCode).toBe(200);
    const result = res.json().result;
    expect(result.resultType).toBe('input_required');
    return result as { requestState: string; inputRequests: Record<string, unknown> };
  }

  function retry(path: string, state: unknown, response: unknown, token = world.token) {
    return call(
      {
        name: 'files_delete',
        arguments: { path },
        inputResponses: { elicitation: response },
        requestState: state,
      },
      FORM,
      token,
    );
  }

  const ACCEPT = { action: 'accept', content: { confirm: true } };

  it('answers input_required with the question, then the result on a correct retry', async () => {
    const first = await parkDelete('/tmp/a');
    expect(first).toEqual({
      resultType: 'input_required',
      inputRequests: {
        elicitation: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Delete /tmp/a?',
            requestedSchema: expect.objectContaining({ required: ['confirm'] }),
          },
        },
      },
      requestState: expect.stringMatching(/^v1\./),
      _meta: {
        'io.modelcontextprotocol/serverInfo': expect.objectContaining({ name: 'connector' }),
      },
    });
    expect(server.inFlight.size).toBe(0);
    const second = await retry('/tmp/a', first.requestState, ACCEPT);
    expect(second.json().result).toMatchObject({
      structuredContent: { deleted: true, action: 'accept' },
      resultType: 'complete',
    });
    expect(files.answers).toEqual([ACCEPT]);
    expect(files.calls).toHaveLength(1);
  });

  it('resumes a call that asks twice with a new state each time', async () => {
    const first = await call({ name: 'files_rename', arguments: {} });
    const state1 = first.json().result.requestState;
    const second = await call({
      name: 'files_rename',
      arguments: {},
      inputResponses: { elicitation: { action: 'accept', content: { name: 'b.txt' } } },
      requestState: state1,
    });
    const asked = second.json().result;
    expect(asked.resultType).toBe('input_required');
    expect(asked.inputRequests.elicitation.params.message).toBe('Rename to b.txt?');
    expect(asked.requestState).not.toBe(state1);
    const third = await call({
      name: 'files_rename',
      arguments: {},
      inputResponses: { elicitation: { action: 'decline' } },
      requestState: asked.requestState,
    });
    expect(third.json().result.content).toEqual([{ type: 'text', text: 'renamed:b.txt:decline' }]);
  });

  it('answers -32602 to a tampered, replayed, foreign or missing state and resumes nothing', async () => {
    const first = await parkDelete('/tmp/a');
    const state: string = first.requestState;
    const last = state.at(-1) === 'A' ? 'B' : 'A';
    const other = world.tokens.issue('ws-1', 'sess-2');
    const refusals = [
      await retry('/tmp/a', `${state.slice(0, -1)}${last}`, ACCEPT),
      await retry('/tmp/b', state, ACCEPT),
      await retry('/tmp/a', state, ACCEPT, other),
      await retry('/tmp/a', undefined, ACCEPT),
      await retry('/tmp/a', 42, ACCEPT),
    ];
    for (const res of refusals) {
      expect(res.statusCode).toBe(200);
      expect(res.json().error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('retry the call from the start'),
      });
    }
    expect(files.answers).toEqual([]);
    // The parked call is still there for the right retry, which then cannot be replayed.
    expect((await retry('/tmp/a', state, ACCEPT)).json().result.structuredContent.deleted).toBe(
      true,
    );
    expect((await retry('/tmp/a', state, ACCEPT)).json().error.code).toBe(-32602);
    expect(files.calls).toHaveLength(1);
  });

  it('answers the upstream cancel at once for a caller without the elicitation capability', async () => {
    const res = await call({ name: 'files_delete', arguments: { path: '/x' } }, {});
    expect(res.json().result.structuredContent).toEqual({ deleted: false, action: 'cancel' });
    expect(files.answers).toEqual([{ action: 'cancel' }]);
  });

  it('relays URL mode only to a caller that declared it, without the 2025 elicitationId', async () => {
    const formOnly = await call({ name: 'files_login', arguments: {} }, FORM);
    expect(formOnly.json().result.content).toEqual([{ type: 'text', text: 'login:cancel' }]);
    const both = await call({ name: 'files_login', arguments: {} }, FORM_AND_URL);
    expect(both.json().result.inputRequests.elicitation.params).toEqual({
      mode: 'url',
      message: 'Sign in',
      url: 'https://example.test/login',
    });
  });

  it('takes a malformed answer as cancel', async () => {
    for (const response of [
      { action: 'accept', content: { confirm: { nested: true } } },
      {
        action: 'accept',
        content: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, true])),
      },
      { action: 'accept', content: { confirm: 'y'.repeat(40_000) } },
      { action: 'yes' },
      'accept',
    ]) {
      const first = await parkDelete('/m');
      const res = await retry('/m', first.requestState, response);
      expect(res.json().result.structuredContent.action).toBe('cancel');
    }
    expect(files.answers).toEqual(Array.from({ length: 5 }, () => ({ action: 'cancel' })));
  });

  it('takes the answers the 2025 surface takes: content dropped unless a form is accepted', async () => {
    const cases: [unknown, unknown][] = [
      [{ action: 'decline', content: { confirm: true } }, { action: 'decline' }],
      [{ action: 'decline', content: null }, { action: 'decline' }],
      [{ action: 'cancel', content: {} }, { action: 'cancel' }],
      [{ action: 'accept', content: null }, { action: 'accept' }],
      [
        { action: 'accept', content: { confirm: true } },
        { action: 'accept', content: { confirm: true } },
      ],
    ];
    for (const [response, answer] of cases) {
      const first = await parkDelete('/m');
      await retry('/m', first.requestState, response);
      expect(files.answers.at(-1)).toEqual(answer);
    }
    // In URL mode an accepted answer carries no content.
    const login = await call({ name: 'files_login', arguments: {} }, FORM_AND_URL);
    const done = await call(
      {
        name: 'files_login',
        arguments: {},
        inputResponses: { elicitation: { action: 'accept', content: { token: 'x' } } },
        requestState: login.json().result.requestState,
      },
      FORM_AND_URL,
    );
    expect(done.json().result.content).toEqual([{ type: 'text', text: 'login:accept' }]);
    expect(files.answers.at(-1)).toEqual({ action: 'accept' });
  });

  it('reads the declared modes as the 2025 surface does', async () => {
    // `url` alone is URL only: a form question is answered cancel upstream.
    const urlOnly = await call(
      { name: 'files_delete', arguments: { path: '/u' } },
      {
        elicitation: { url: {} },
      },
    );
    expect(urlOnly.json().result.structuredContent.action).toBe('cancel');
    // Members that are no mode declare none.
    const unknown = await call(
      { name: 'files_delete', arguments: { path: '/u' } },
      {
        elicitation: { voice: {} },
      },
    );
    expect(unknown.json().result.structuredContent.action).toBe('cancel');
    await parkDelete('/f');
  });

  it('relays progress to the request waiting on the call, each with its own token', async () => {
    const steps = createFakeUpstream([
      {
        tool: { name: 'run', inputSchema: { type: 'object' } },
        run: async (_args, signal, options) => {
          options.onProgress?.({ progress: 1, total: 3, message: 'before' });
          const asked = options.elicit?.({
            mode: 'form',
            message: 'Go on?',
            requestedSchema: { type: 'object', properties: {} },
          });
          // Parked now: nobody is there to hear this one.
          options.onProgress?.({ progress: 2, total: 3, message: 'parked' });
          const answer = await Promise.race([asked, untilAborted(signal, 'run')]);
          options.onProgress?.({ progress: 3, total: 3, message: 'after' });
          return text(`ran:${answer?.action}`);
        },
      },
    ]);
    world.registry.commit('steps', 1, steps, steps.tools);
    const first = await call({ name: 'steps_run', arguments: {}, _meta: { progressToken: 'p1' } });
    const firstMessages = messagesOf(first);
    expect(firstMessages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p1', progress: 1, total: 3, message: 'before' },
      },
      expect.objectContaining({
        result: expect.objectContaining({ resultType: 'input_required' }),
      }),
    ]);
    expect(steps.calls[0]!.hearsProgress).toBe(true);
    const state = (firstMessages[1]!.result as Params).requestState;
    const second = await call({
      name: 'steps_run',
      arguments: {},
      inputResponses: { elicitation: { action: 'accept' } },
      requestState: state,
      _meta: { progressToken: 'p2' },
    });
    expect(messagesOf(second)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p2', progress: 3, total: 3, message: 'after' },
      },
      expect.objectContaining({
        result: expect.objectContaining({ content: [{ type: 'text', text: 'ran:accept' }] }),
      }),
    ]);
  });

  it('lets a call that ended while parked leave the board and the bounds at once', async () => {
    const quits: (() => void)[] = [];
    const quitter = createFakeUpstream([
      {
        tool: { name: 'ask', inputSchema: { type: 'object' } },
        run: async (args, _signal, options) => {
          void options.elicit?.({
            mode: 'form',
            message: `Go ${String(args?.n)}?`,
            requestedSchema: { type: 'object', properties: {} },
          });
          // It gives up waiting for the answer.
          await new Promise<void>((resolve) => quits.push(resolve));
          return text(`gave up ${String(args?.n)}`);
        },
      },
    ]);
    world.registry.commit('quit', 1, quitter, quitter.tools);
    const states: string[] = [];
    for (let n = 0; n < 4; n++) {
      const res = await call({ name: 'quit_ask', arguments: { n } });
      expect(res.json().result.resultType).toBe('input_required');
      states.push(res.json().result.requestState);
    }
    expect(server.elicitations.pendingFor('sess-1')).toHaveLength(4);
    for (const quit of quits) quit();
    await vi.waitFor(() => expect(server.elicitations.pendingFor('sess-1')).toEqual([]));
    // No request sent a progress token: none was sent upstream.
    expect(quitter.calls.map((seen) => seen.hearsProgress)).toEqual([false, false, false, false]);
    // The token's parking room is free again: a 5th call parks.
    await parkDelete('/5th');
    // Each retry still gets its call's outcome, once.
    for (const [n, state] of states.entries()) {
      const retried = await call({
        name: 'quit_ask',
        arguments: { n },
        inputResponses: { elicitation: { action: 'accept' } },
        requestState: state,
      });
      expect(retried.json().result.content).toEqual([{ type: 'text', text: `gave up ${n}` }]);
    }
    const replay = await call({
      name: 'quit_ask',
      arguments: { n: 0 },
      inputResponses: { elicitation: { action: 'accept' } },
      requestState: states[0],
    });
    expect(replay.json().error.code).toBe(-32602);
  });

  it('answers an outcome kept for a retry as aborted to the observer when it expires', async () => {
    server.shutdown();
    await server.app.close();
    const answers: unknown[] = [];
    start({
      observer: {
        begin: () => ({
          upstream: () => undefined,
          upstreamEnded: () => undefined,
          answered: (a) => void answers.push(a),
        }),
      },
      parkedCallTtlMs: 100,
    });
    let quit = (): void => undefined;
    const quitter = createFakeUpstream([
      {
        tool: { name: 'ask', inputSchema: { type: 'object' } },
        run: async (_args, _signal, options) => {
          void options.elicit?.({
            mode: 'form',
            message: 'Go?',
            requestedSchema: { type: 'object', properties: {} },
          });
          await new Promise<void>((resolve) => {
            quit = resolve;
          });
          return text('gave up');
        },
      },
    ]);
    world.registry.commit('quit', 1, quitter, quitter.tools);
    const first = await call({ name: 'quit_ask', arguments: {} });
    quit();
    await vi.waitFor(() => expect(server.elicitations.pendingFor('sess-1')).toEqual([]));
    expect(answers).toEqual([]);
    await vi.waitFor(() => expect(answers).toEqual([expect.objectContaining({ aborted: true })]));
    const late = await call({
      name: 'quit_ask',
      arguments: {},
      inputResponses: { elicitation: { action: 'accept' } },
      requestState: first.json().result.requestState,
    });
    expect(late.json().error.code).toBe(-32602);
  });

  it('parks at most 4 calls per token: the 5th call’s question is answered cancel upstream', async () => {
    for (let n = 0; n < 4; n++) await parkDelete(`/p${n}`);
    const fifth = await call({ name: 'files_delete', arguments: { path: '/p4' } });
    expect(fifth.json().result.structuredContent).toEqual({ deleted: false, action: 'cancel' });
    // Another token still has room.
    await parkDelete('/q', world.tokens.issue('ws-1', 'sess-2'));
  });

  it('parks at most maxParkedCalls per server', async () => {
    server.shutdown();
    await server.app.close();
    start({ maxParkedCalls: 2 });
    await parkDelete('/1');
    await parkDelete('/2', world.tokens.issue('ws-1', 'sess-2'));
    const third = await call({ name: 'files_delete', arguments: { path: '/3' } });
    expect(third.json().result.structuredContent.action).toBe('cancel');
  });

  it('cancels a parked call upstream when its token is revoked', async () => {
    await parkDelete('/r');
    const upstream = await files.called('delete');
    world.tokens.revokeSession('ws-1', 'sess-1');
    expect(await aborted(upstream.signal)).toBe('revoked');
  });

  it('cancels a parked call upstream when it expires, and refuses its retry after', async () => {
    server.shutdown();
    await server.app.close();
    start({ parkedCallTtlMs: 30 });
    const first = await parkDelete('/e');
    const upstream = await files.called('delete');
    expect(await aborted(upstream.signal)).toBe('expired');
    expect((await retry('/e', first.requestState, ACCEPT)).json().error.code).toBe(-32602);
  });

  it('cancels every parked call upstream at shutdown', async () => {
    await parkDelete('/s');
    const upstream = await files.called('delete');
    server.shutdown();
    expect(await aborted(upstream.signal)).toBe('shutdown');
  });

  it('cancels the upstream call when the retry waiting on it is cancelled', async () => {
    const answers: unknown[] = [];
    const hang = createFakeUpstream([
      {
        tool: { name: 'ask_then_hang', inputSchema: { type: 'object' } },
        run: async (_args, signal, options) => {
          answers.push(
            await options.elicit?.({
              mode: 'form',
              message: 'Go?',
              requestedSchema: { type: 'object', properties: {} },
            }),
          );
          return untilAborted(signal, 'ask_then_hang');
        },
      },
    ]);
    world.registry.commit('hang', 1, hang, hang.tools);
    const first = await call({ name: 'hang_ask_then_hang', arguments: {} });
    const pending = call(
      {
        name: 'hang_ask_then_hang',
        arguments: {},
        inputResponses: { elicitation: { action: 'accept' } },
        requestState: first.json().result.requestState,
      },
      FORM,
      world.token,
      777,
    );
    const upstream = await hang.called('ask_then_hang');
    await vi.waitFor(() => expect(answers).toEqual([{ action: 'accept' }]));
    const cancel = await server.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: {
        ...legacyHeaders(world.token),
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'notifications/cancelled',
      },
      payload: {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 777, _meta: ENVELOPE },
      },
    });
    expect(cancel.statusCode).toBe(202);
    expect(await aborted(upstream.signal)).toBe('cancelled');
    expect((await pending).json().error.code).toBe(-32800);
  });

  it('refuses arbitrary requestState values with -32602 and never answers the upstream', async () => {
    const first = await parkDelete('/f');
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 200 }), fc.jsonValue()), async (state) => {
        fc.pre(state !== first.requestState);
        const res = await retry('/f', state, ACCEPT);
        expect(res.json().error.code).toBe(-32602);
      }),
      { numRuns: 60 },
    );
    expect(files.answers).toEqual([]);
  });

  it('observes a call once: begun by its first request, answered by the retry that ends it', async () => {
    server.shutdown();
    await server.app.close();
    const events: string[] = [];
    start({
      observer: {
        begin(arrival) {
          events.push(`begin ${(arrival.params as Params).name}`);
          return {
            upstream: (binding) => {
              events.push(`upstream ${binding.upstreamName}`);
              return undefined;
            },
            upstreamEnded: (result) => events.push(`ended ${result?.isError === true}`),
            answered: (answer) =>
              events.push(`answered ${answer.aborted} ${answer.resultBytes > 0}`),
          };
        },
      },
      parkedCallTtlMs: 200,
    });
    const first = await parkDelete('/o');
    expect(events).toEqual(['begin files_delete', 'upstream delete']);
    await retry('/o', 'v1.forged', ACCEPT);
    expect(events).toHaveLength(2);
    await retry('/o', first.requestState, ACCEPT);
    expect(events).toEqual([
      'begin files_delete',
      'upstream delete',
      'ended false',
      'answered false true',
    ]);
    // A call that expires parked is answered as aborted, once.
    events.length = 0;
    await parkDelete('/o2');
    await vi.waitFor(() => expect(events).toContain('answered true false'));
    expect(events).toEqual([
      'begin files_delete',
      'upstream delete',
      'ended false',
      'answered true false',
    ]);
  });

  it('puts each relayed question on the board and takes it down once answered', async () => {
    const first = await parkDelete('/b');
    expect(server.elicitations.pendingFor('sess-1')).toEqual([
      {
        agentSessionId: 'sess-1',
        connector: 'files',
        tool: 'files_delete',
        request: expect.objectContaining({ mode: 'form', message: 'Delete /b?' }),
        since: expect.any(Number),
      },
    ]);
    await retry('/b', first.requestState, ACCEPT);
    expect(server.elicitations.pendingFor('sess-1')).toEqual([]);
  });
});
