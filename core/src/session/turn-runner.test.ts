import { describe, expect, it } from 'vitest';
import { createPassThroughTracer } from '../telemetry/pass-through.js';
import type { LiveSession } from './provider-contract.js';
import { TurnRunner } from './turn-runner.js';
import type {
  PermissionAsk,
  PermissionMode,
  PermissionOutcome,
  StopReason,
  TurnEvent,
  TurnSink,
} from './turn-types.js';

const SERVED = new Set(['notes_add', 'first_echo']);

/** A turn whose agent does `script` with the sink; events and the agent's answers recorded. */
function runTurn(
  permissions: PermissionMode,
  script: (sink: TurnSink, answers: PermissionOutcome[]) => Promise<StopReason>,
  permissionTimeoutMs = 60_000,
) {
  const events: TurnEvent[] = [];
  const answers: PermissionOutcome[] = [];
  const waiting: { resolve?: (event: TurnEvent) => void } = {};
  const handle: LiveSession = {
    providerSessionId: 'p1',
    turn: (_prompt, given) => script(given, answers),
  };
  const runner = new TurnRunner(
    handle,
    [{ type: 'text', text: 'go' }],
    (event) => {
      events.push(event);
      if (event.type === 'permission') waiting.resolve?.(event);
    },
    {
      permissions,
      permissionTimeoutMs,
      provider: 'fake',
      session: 's1',
      tracer: createPassThroughTracer(),
      proof: { forms: ['mcp__{server}__{tool}'], served: (tool) => SERVED.has(tool) },
    },
  );
  const nextPermission = () =>
    new Promise<Extract<TurnEvent, { type: 'permission' }>>((resolve) => {
      const pending = events.find((event) => event.type === 'permission');
      if (pending) resolve(pending as Extract<TurnEvent, { type: 'permission' }>);
      else
        waiting.resolve = (event) => resolve(event as Extract<TurnEvent, { type: 'permission' }>);
    });
  return { runner, events, answers, nextPermission };
}

/** An agent that asks once about `ask` and records the answer it was handed. */
const askOnce =
  (ask: PermissionAsk) =>
  async (sink: TurnSink, answers: PermissionOutcome[]): Promise<StopReason> => {
    answers.push(await sink.permission(ask));
    return 'end_turn';
  };

describe('TurnRunner', () => {
  it('starts with the permission mode and ends with exactly one end event', async () => {
    const turn = runTurn('agent', async (sink) => {
      sink.emit({ type: 'text', text: 'hi' });
      return 'end_turn';
    });
    await turn.runner.done;
    expect(turn.events).toEqual([
      { type: 'start', permissions: 'agent' },
      { type: 'text', text: 'hi' },
      { type: 'end', stopReason: 'end_turn' },
    ]);
  });

  it('allows a connector tool it proves under allow-connector, without a permission event', async () => {
    const turn = runTurn(
      'allow-connector',
      askOnce({ identity: { name: 'mcp__connector__notes_add' } }),
    );
    await turn.runner.done;
    expect(turn.answers).toEqual(['allow']);
    expect(turn.events.some((event) => event.type === 'permission')).toBe(false);
  });

  it('asks for a non-connector tool under allow-connector, and hands the agent the answer', async () => {
    const turn = runTurn('allow-connector', askOnce({ identity: { name: 'Bash' } }));
    const asked = await turn.nextPermission();
    expect(asked).toMatchObject({ server: '', tool: 'Bash', options: ['allow', 'deny'] });
    expect(turn.runner.answer(asked.requestId, 'deny')).toBe(true);
    await turn.runner.done;
    expect(turn.answers).toEqual(['deny']);
  });

  it.each([
    ['a title naming a connector tool', { label: 'connector_probe; touch /tmp/x' }],
    ['a title in the MCP form', { label: 'mcp__connector__notes_add' }],
    ['a connector tool the registry does not hold', { name: 'mcp__connector__x' }],
    ['a tool of the connector server it was not served', { server: 'connector', tool: 'rm_all' }],
    ['a tool named in another form', { name: 'connector_notes_add' }],
  ])('asks, labelled with no server, for %s under allow-connector', async (_what, identity) => {
    const turn = runTurn('allow-connector', askOnce({ identity }));
    const asked = await turn.nextPermission();
    expect(asked.server).toBe('');
    turn.runner.answer(asked.requestId, 'allow');
    await turn.runner.done;
    expect(turn.answers).toEqual(['allow']);
  });

  it('asks under ask for a connector tool it proves, labelled connector', async () => {
    const turn = runTurn('ask', askOnce({ identity: { server: 'connector', tool: 'first_echo' } }));
    const asked = await turn.nextPermission();
    expect(asked).toMatchObject({ server: 'connector', tool: 'first_echo' });
    turn.runner.answer(asked.requestId, 'allow');
    await turn.runner.done;
    expect(turn.answers).toEqual(['allow']);
  });

  it("keeps a call's first label: a later update naming a connector tool changes nothing", async () => {
    const turn = runTurn('allow-connector', async (sink, answers) => {
      sink.emit({
        type: 'tool_call',
        callId: 'c1',
        identity: { name: 'bash' },
        status: 'pending',
      });
      sink.emit({
        type: 'tool_call',
        callId: 'c1',
        identity: { name: 'mcp__connector__notes_add' },
        status: 'in_progress',
      });
      answers.push(
        await sink.permission({ callId: 'c1', identity: { name: 'mcp__connector__notes_add' } }),
      );
      return 'end_turn';
    });
    const asked = await turn.nextPermission();
    expect(asked).toMatchObject({ server: '', tool: 'bash' });
    turn.runner.answer(asked.requestId, 'deny');
    await turn.runner.done;
    expect(turn.answers).toEqual(['deny']);
    const calls = turn.events.filter((event) => event.type === 'tool_call');
    expect(calls.map((event) => [event.server, event.tool])).toEqual([
      ['', 'bash'],
      ['', 'bash'],
    ]);
  });

  it('labels a proven connector call connector from its first event on', async () => {
    const turn = runTurn('ask', async (sink) => {
      sink.emit({
        type: 'tool_call',
        callId: 'c2',
        identity: { name: 'mcp__connector__first_echo' },
        status: 'in_progress',
      });
      sink.emit({ type: 'tool_call', callId: 'c2', identity: { label: '' }, status: 'completed' });
      return 'end_turn';
    });
    await turn.runner.done;
    expect(turn.events.filter((event) => event.type === 'tool_call')).toEqual([
      {
        type: 'tool_call',
        callId: 'c2',
        server: 'connector',
        tool: 'first_echo',
        status: 'in_progress',
      },
      {
        type: 'tool_call',
        callId: 'c2',
        server: 'connector',
        tool: 'first_echo',
        status: 'completed',
      },
    ]);
  });

  it('hands the agent a refusal when nobody answers within the permission timeout, and cancels the turn', async () => {
    let aborted = false;
    const turn = runTurn(
      'ask',
      async (sink, answers) => {
        sink.signal.addEventListener('abort', () => {
          aborted = true;
        });
        answers.push(await sink.permission({ identity: { name: 'Bash' } }));
        return 'cancelled';
      },
      50,
    );
    await turn.runner.done;
    expect(turn.answers).toEqual(['deny']);
    expect(aborted).toBe(true);
    expect(turn.events).toContainEqual(
      expect.objectContaining({ type: 'error', code: 'TUTTI_ERR_TURN_PERMISSION_TIMEOUT' }),
    );
    expect(turn.events.at(-1)).toEqual({ type: 'end', stopReason: 'cancelled' });
  });

  it('refuses what the agent asks after a cancel without asking the host', async () => {
    const turn = runTurn('ask', async (sink, answers) => {
      await new Promise<void>((resolve) => sink.signal.addEventListener('abort', () => resolve()));
      answers.push(await sink.permission({ identity: { name: 'Bash' } }));
      return 'cancelled';
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(turn.runner.cancel()).toBe(true);
    await turn.runner.done;
    expect(turn.answers).toEqual(['deny']);
    expect(turn.events.some((event) => event.type === 'permission')).toBe(false);
  });
});
