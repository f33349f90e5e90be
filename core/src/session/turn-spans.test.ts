import { recordingTracer } from '@tutti/test-kit/core/recording-tracer';
import { describe, expect, it } from 'vitest';
import { createPassThroughTracer } from '../telemetry/pass-through.js';
import type { Tracer } from '../telemetry/types.js';
import { TurnRunner } from './turn-runner.js';
import type { PermissionMode, StopReason, TurnEvent, TurnSink } from './turn-types.js';

/** A promise and its resolve. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const SERVED = new Set(['notes_add', 'first_echo']);
const PROMPT = 'the prompt: do not record me';

/** A turn whose agent runs `script`, traced by a recording tracer. */
function tracedTurn(
  permissions: PermissionMode,
  script: (sink: TurnSink) => Promise<StopReason>,
  { permissionTimeoutMs = 60_000, tracer = undefined as Tracer | undefined } = {},
) {
  const recorded = recordingTracer();
  const events: TurnEvent[] = [];
  const asked = deferred<string>();
  const runner = new TurnRunner(
    { providerSessionId: 'p1', turn: (_prompt, sink) => script(sink) },
    [{ type: 'text', text: PROMPT }],
    (event) => {
      events.push(event);
      if (event.type === 'permission') asked.resolve(event.requestId);
    },
    {
      permissions,
      permissionTimeoutMs,
      provider: 'fake',
      session: 's1',
      tracer: tracer ?? recorded.tracer,
      proof: { forms: ['mcp__{server}__{tool}'], served: (tool) => SERVED.has(tool) },
    },
  );
  return { runner, events, asked: asked.promise, ...recorded };
}

/** Announces call `callId` of the agent's tool `name` at `status`. */
function call(sink: TurnSink, callId: string, name: string, status: 'in_progress' | 'completed') {
  sink.emit({ type: 'tool_call', callId, identity: { name }, status });
}

describe('turn spans', () => {
  it('makes a turn span, a child span per tool call and a grandchild per permission, all ended', async () => {
    const turn = tracedTurn('allow-connector', async (sink) => {
      sink.emit({ type: 'text', text: 'the output: do not record me' });
      call(sink, 'c1', 'mcp__connector__notes_add', 'in_progress');
      await sink.permission({ callId: 'c1', identity: { name: 'mcp__connector__notes_add' } });
      call(sink, 'c1', 'mcp__connector__notes_add', 'completed');
      sink.emit({ type: 'tool_result', callId: 'c1', isError: false });
      return 'end_turn';
    });
    await turn.runner.done;
    expect(turn.tree()).toEqual([
      ['invoke_agent fake', undefined],
      ['execute_tool notes_add', 'invoke_agent fake'],
      ['permission notes_add', 'execute_tool notes_add'],
    ]);
    expect(new Set(turn.spans.map((span) => span.context.traceId)).size).toBe(1);
    expect(turn.spans.every((span) => span.ended && span.kind === 'internal')).toBe(true);
    expect(turn.spans.some((span) => span.failed)).toBe(false);
    expect(turn.named('invoke_agent fake').attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'fake',
      'gen_ai.conversation.id': 's1',
      'tutti.permission.mode': 'allow-connector',
      'tutti.turn.stop_reason': 'end_turn',
    });
    expect(turn.named('execute_tool notes_add').attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'notes_add',
      'gen_ai.tool.call.id': 'c1',
      'tutti.tool.server': 'connector',
      'tutti.tool.status': 'completed',
    });
    expect(turn.named('permission notes_add').attributes).toMatchObject({
      'gen_ai.tool.call.id': 'c1',
      'tutti.permission.outcome': 'allow',
      'tutti.permission.decided_by': 'allow-connector',
    });
    const values = turn.spans.flatMap((span) => Object.values(span.attributes)).join('\n');
    expect(values).not.toContain('do not record me');
  });

  it("fails a failed tool call's span with tool_error, and not the turn's", async () => {
    const turn = tracedTurn('agent', async (sink) => {
      call(sink, 'c1', 'Bash', 'in_progress');
      sink.emit({ type: 'tool_call', callId: 'c1', identity: { name: 'Bash' }, status: 'failed' });
      return 'end_turn';
    });
    await turn.runner.done;
    expect(turn.named('execute_tool Bash')).toMatchObject({
      failed: 'tool_error',
      ended: true,
      attributes: { 'tutti.tool.server': undefined, 'tutti.tool.status': 'failed' },
    });
    expect(turn.named('invoke_agent fake').failed).toBeUndefined();
  });

  it.each(['allow', 'deny'] as const)(
    'records a permission the host answers %s under its call, decided by the host',
    async (outcome) => {
      const turn = tracedTurn('ask', async (sink) => {
        call(sink, 'c1', 'mcp__connector__first_echo', 'in_progress');
        await sink.permission({ callId: 'c1', identity: { name: 'mcp__connector__first_echo' } });
        return 'end_turn';
      });
      turn.runner.answer(await turn.asked, outcome);
      await turn.runner.done;
      expect(turn.tree()).toContainEqual(['permission first_echo', 'execute_tool first_echo']);
      expect(turn.named('permission first_echo')).toMatchObject({
        ended: true,
        attributes: {
          'tutti.permission.outcome': outcome,
          'tutti.permission.decided_by': 'host',
          'tutti.permission.mode': 'ask',
        },
      });
    },
  );

  it('records a permission asked without a call under the turn, denied and failed by the timeout', async () => {
    const turn = tracedTurn(
      'ask',
      async (sink) => {
        await sink.permission({ identity: { name: 'Bash' } });
        return 'cancelled';
      },
      { permissionTimeoutMs: 20 },
    );
    await turn.runner.done;
    expect(turn.tree()).toEqual([
      ['invoke_agent fake', undefined],
      ['permission Bash', 'invoke_agent fake'],
    ]);
    expect(turn.named('permission Bash')).toMatchObject({
      ended: true,
      failed: 'TUTTI_ERR_TURN_PERMISSION_TIMEOUT',
      attributes: { 'tutti.permission.outcome': 'deny', 'tutti.permission.decided_by': 'timeout' },
    });
  });

  it('ends every span of a cancelled turn: its open call, its pending permission, the turn', async () => {
    const turn = tracedTurn('ask', async (sink) => {
      call(sink, 'c1', 'mcp__connector__notes_add', 'in_progress');
      await sink.permission({ callId: 'c2', identity: { name: 'Bash' } });
      return 'cancelled';
    });
    await turn.asked;
    expect(turn.runner.cancel()).toBe(true);
    await turn.runner.done;
    expect(turn.tree()).toEqual([
      ['invoke_agent fake', undefined],
      ['execute_tool notes_add', 'invoke_agent fake'],
      ['execute_tool Bash', 'invoke_agent fake'],
      ['permission Bash', 'execute_tool Bash'],
    ]);
    expect(turn.spans.filter((span) => !span.ended)).toEqual([]);
    expect(turn.named('permission Bash').attributes).toMatchObject({
      'tutti.permission.outcome': 'deny',
      'tutti.permission.decided_by': 'cancelled',
    });
    expect(turn.named('execute_tool notes_add').attributes['tutti.tool.status']).toBe(
      'in_progress',
    );
    expect(turn.named('invoke_agent fake').failed).toBeUndefined();
    expect(turn.named('invoke_agent fake').attributes['tutti.turn.stop_reason']).toBe('cancelled');
  });

  it("fails the turn's span with the error's code when the agent fails, not its message", async () => {
    const turn = tracedTurn('agent', async () => {
      throw new Error('the agent broke: do not record me');
    });
    await turn.runner.done;
    expect(turn.named('invoke_agent fake')).toMatchObject({
      ended: true,
      failed: 'TUTTI_ERR_TURN_FAILED',
      attributes: { 'tutti.turn.stop_reason': 'error' },
    });
  });

  it('names no tool in the spans of a call the agent names only by a title', async () => {
    const turn = tracedTurn('ask', async (sink) => {
      const identity = { label: 'cat ~/.ssh/id_rsa' };
      sink.emit({ type: 'tool_call', callId: 'c1', identity, status: 'pending' });
      await sink.permission({ callId: 'c1', identity });
      return 'end_turn';
    });
    turn.runner.answer(await turn.asked, 'deny');
    await turn.runner.done;
    expect(turn.tree()).toEqual([
      ['invoke_agent fake', undefined],
      ['execute_tool', 'invoke_agent fake'],
      ['permission', 'execute_tool'],
    ]);
    const values = turn.spans.flatMap((span) => Object.values(span.attributes)).join('\n');
    expect(values).not.toContain('id_rsa');
  });
});

describe('TurnRunner.toolCallParent', () => {
  it('picks the newest open call of the tool, else the newest open connector call, else the turn', async () => {
    const gates = [deferred(), deferred(), deferred()];
    const reached = [deferred(), deferred(), deferred()];
    const turn = tracedTurn('agent', async (sink) => {
      call(sink, 'c1', 'mcp__connector__notes_add', 'in_progress');
      call(sink, 'c2', 'mcp__connector__first_echo', 'in_progress');
      call(sink, 'c3', 'mcp__connector__notes_add', 'in_progress');
      call(sink, 'c4', 'Bash', 'in_progress');
      call(sink, 'c5', 'mcp__connector__not_served', 'in_progress');
      reached[0]!.resolve();
      await gates[0]!.promise;
      call(sink, 'c3', 'mcp__connector__notes_add', 'completed');
      reached[1]!.resolve();
      await gates[1]!.promise;
      for (const id of ['c1', 'c2']) call(sink, id, 'mcp__connector__x', 'completed');
      reached[2]!.resolve();
      await gates[2]!.promise;
      return 'end_turn';
    });
    const spanOf = (callId: string) =>
      turn.spans.find((span) => span.attributes['gen_ai.tool.call.id'] === callId)!.context;
    await reached[0]!.promise;
    expect(turn.runner.toolCallParent('notes_add')).toEqual(spanOf('c3'));
    expect(turn.runner.toolCallParent('first_echo')).toEqual(spanOf('c2'));
    expect(turn.runner.toolCallParent('other_tool')).toEqual(spanOf('c3'));
    gates[0]!.resolve();
    await reached[1]!.promise;
    expect(turn.runner.toolCallParent('notes_add')).toEqual(spanOf('c1'));
    expect(turn.runner.toolCallParent('other_tool')).toEqual(spanOf('c2'));
    gates[1]!.resolve();
    await reached[2]!.promise;
    expect(turn.runner.toolCallParent('notes_add')).toEqual(
      turn.named('invoke_agent fake').context,
    );
    gates[2]!.resolve();
    await turn.runner.done;
    expect(turn.runner.toolCallParent('notes_add')).toBeUndefined();
  });

  it('gives no parent under the pass-through tracer, which records nothing', async () => {
    const gate = deferred();
    const reached = deferred();
    const turn = tracedTurn(
      'agent',
      async (sink) => {
        call(sink, 'c1', 'mcp__connector__notes_add', 'in_progress');
        reached.resolve();
        await gate.promise;
        return 'end_turn';
      },
      { tracer: createPassThroughTracer() },
    );
    await reached.promise;
    expect(turn.runner.toolCallParent('notes_add')).toBeUndefined();
    gate.resolve();
    await turn.runner.done;
  });
});
