/**
 * One trace for a daemon-driven turn, with a real tuttid exporting to a loopback OTLP
 * receiver and a real agent (Claude Code, Agent SDK) against the scripted model: the turn's
 * span, the span of the connector call the agent announced, the daemon's SERVER span of the
 * `tools/call` the agent made (with no trace context of its own) and the CLIENT span of the
 * upstream call hang one under the other; no prompt or tool argument is in any span.
 */
import { cleanUp, writeRelease } from '@tutti/test-kit';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import { callConnectorTool, runTurn, turnAgents } from '@tutti/test-kit/agent-turns';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '@tutti/test-kit/otlp-receiver';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';
import { afterEach, describe, expect, it } from 'vitest';

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await cleanUp();
});

const TURN = 'invoke_agent claude-sdk';
const CALL = 'execute_tool first_echo';
const SERVER = 'tools/call first_echo';
const CLIENT = 'tools/call echo';

/** The one span named `name`. */
function only(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const named = spans.filter((span) => span.name === name);
  expect(named, `spans named ${name} among ${spans.map((span) => span.name)}`).toHaveLength(1);
  return named[0]!;
}

describe('the trace of a daemon-driven turn', () => {
  it("hangs the agent's connector call, the daemon's SERVER span and the upstream's CLIENT span under the turn, in one trace", async () => {
    const otlp: OtlpReceiver = await startOtlpReceiver();
    closers.push(() => otlp.close());
    const model: ScriptedModel = await startScriptedModel();
    closers.push(() => model.close());
    const agents: AgentDaemon = await startAgentDaemon({
      args: ['--otlp-endpoint', otlp.endpoint],
    });
    closers.push(() => agents.dispose());
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    const bodies = await turnAgents(agents, model);
    const info = await agents.startSession({
      workspaceId: 'ws-turn-trace',
      cwd: agents.agentEnv.cwd,
      permissions: 'allow-connector',
      ...bodies['claude-sdk'],
    });
    model.script(callConnectorTool('first_echo', { text: 'argument-not-in-spans' }));

    const turn = await runTurn(agents, info.id, 'prompt-not-in-spans: use first_echo.');
    expect(turn.events.at(-1), JSON.stringify(turn.events)).toEqual({
      type: 'end',
      stopReason: 'end_turn',
    });
    const spans = await otlp.waitFor((all) =>
      [TURN, CALL, SERVER, CLIENT].every((name) => all.some((span) => span.name === name)),
    );

    const turnSpan = only(spans, TURN);
    const callSpan = only(spans, CALL);
    const server = only(spans, SERVER);
    const client = only(spans, CLIENT);
    expect(new Set([turnSpan, callSpan, server, client].map((span) => span.traceId)).size).toBe(1);
    expect(turnSpan.parentSpanId).toBeUndefined();
    expect(callSpan.parentSpanId).toBe(turnSpan.spanId);
    expect(server.parentSpanId).toBe(callSpan.spanId);
    expect(client.parentSpanId).toBe(server.spanId);
    expect(turnSpan).toMatchObject({
      kind: 'internal',
      service: 'tuttid',
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'claude-sdk',
        'gen_ai.conversation.id': info.id,
        'tutti.permission.mode': 'allow-connector',
        'tutti.turn.stop_reason': 'end_turn',
      },
    });
    expect(callSpan).toMatchObject({
      kind: 'internal',
      status: { code: 'unset' },
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'first_echo',
        'tutti.tool.server': 'connector',
        'tutti.tool.status': 'completed',
      },
    });
    expect(server.kind).toBe('server');
    expect(client.kind).toBe('client');
    // Claude Code asks for every tool: the allow-connector policy answered, under the call.
    const permission = only(spans, 'permission first_echo');
    expect(permission.parentSpanId).toBe(callSpan.spanId);
    expect(permission.attributes).toMatchObject({
      'tutti.permission.outcome': 'allow',
      'tutti.permission.decided_by': 'allow-connector',
    });
    const exported = JSON.stringify(spans);
    expect(exported).not.toContain('argument-not-in-spans');
    expect(exported).not.toContain('prompt-not-in-spans');
  }, 180_000);
});
