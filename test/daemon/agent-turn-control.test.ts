/**
 * Control of turns through the daemon, with real agents: cancel during a slow connector
 * tool (the upstream is told, the turn ends `cancelled`, the next turn works), permission
 * requests in `ask` mode (a denied tool is never called; nobody answering ends the turn
 * after the permission timeout), and bad input (unknown or closed session, a second
 * concurrent turn, a prompt that is not a prompt, an agent that dies in the middle).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp, FIXTURES, WAIT, mcpRequest } from '@tutti/test-kit';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import {
  callConnectorTool,
  runTurn,
  streamTurn,
  type TurnAgent,
  type TurnEvent,
  turnAgents,
} from '@tutti/test-kit/agent-turns';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';

const FAULTY = `${FIXTURES}agents/faulty-agent.mjs`;
const PERMISSION_TIMEOUT_MS = 3_000;

describe('turn control through tuttid', () => {
  let agents: AgentDaemon;
  let model: ScriptedModel;
  let bodies: Awaited<ReturnType<typeof turnAgents>>;
  let sessions = 0;

  beforeAll(async () => {
    model = await startScriptedModel();
    agents = await startAgentDaemon({
      args: ['--permission-timeout', String(PERMISSION_TIMEOUT_MS)],
    });
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    bodies = await turnAgents(agents, model);
  });

  afterAll(async () => {
    await agents?.dispose();
    await model?.close();
    await cleanUp();
  });

  async function start(agent: TurnAgent, permissions: 'ask' | 'allow-connector') {
    sessions += 1;
    return agents.startSession({
      workspaceId: `ws-control-${sessions}`,
      cwd: agents.agentEnv.cwd,
      permissions,
      ...bodies[agent],
    });
  }

  /** Calls a connector tool directly with a host-driven session's token. */
  async function callDirectly(tool: string): Promise<string> {
    const prepared = await agents.daemon.control('POST', '/v1/sessions', {
      workspaceId: 'ws-direct',
      cwd: agents.agentEnv.cwd,
    });
    const binding = {
      url: agents.daemon.ready.mcpUrl,
      headers: { authorization: prepared.body.runtime.mcpServers[0].headers.Authorization },
    };
    const { body } = await mcpRequest(binding, 'tools/call', { name: tool, arguments: {} });
    await agents.daemon.control('DELETE', `/v1/sessions/${prepared.body.session.id}`);
    return body.result.content[0]!.text;
  }

  /** Calls of `tool` the upstream counted, read from the daemon's metrics. */
  async function upstreamCalls(): Promise<number> {
    const metrics = String((await agents.daemon.control('GET', '/metrics')).body);
    const line = metrics
      .split('\n')
      .find((l) => l.startsWith('tutti_connector_tool_calls_total{connector="first"}'));
    return Number(line?.split(' ').pop() ?? 0);
  }

  it.each(['claude-sdk', 'codex', 'opencode'] as const)(
    'cancels a %s turn during a slow connector tool: the upstream is told, and the next turn works',
    async (agent) => {
      const info = await start(agent, 'allow-connector');
      const counts = async () =>
        JSON.parse(await callDirectly('first_cancelled_count')) as {
          cancelled: number;
          sleeping: number;
        };
      const cancelled = async () => (await counts()).cancelled;
      const cancelledBefore = await cancelled();
      model.script(callConnectorTool('first_sleep', { ms: 60_000 }));
      const turn = await streamTurn(agents, info.id, 'Sleep for a minute.');
      await turn.next(
        (event) =>
          event.type === 'tool_call' &&
          String(event.tool).endsWith('first_sleep') &&
          event.status === 'in_progress',
      );
      // The call is announced before it is allowed and runs: cancel once the upstream has it.
      await expect.poll(async () => (await counts()).sleeping, WAIT).toBe(1);
      const cancel = await agents.daemon.control('POST', `/v1/sessions/${info.id}/turns/cancel`);
      expect(cancel.body).toEqual({ cancelled: true });
      const events = await turn.ended;
      expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'cancelled' });
      await expect.poll(cancelled, WAIT).toBeGreaterThan(cancelledBefore);

      model.script(callConnectorTool('first_echo', { text: 'after the cancel' }));
      const next = await runTurn(agents, info.id, 'Echo again.');
      expect(next.events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
      expect(JSON.stringify(next.events)).toContain('after the cancel');
      await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
    },
    120_000,
  );

  it.each(['claude-sdk', 'codex'] as const)(
    'asks the host before a %s connector tool runs in ask mode, and a denied tool is never called',
    async (agent) => {
      const info = await start(agent, 'ask');
      model.script(callConnectorTool('first_echo', { text: 'should not run' }));
      const callsBefore = await upstreamCalls();
      const turn = await streamTurn(agents, info.id, 'Use the echo tool.');
      const permission = (await turn.next((event) => event.type === 'permission')) as TurnEvent & {
        requestId: string;
      };
      expect(permission).toMatchObject({
        server: 'connector',
        tool: 'first_echo',
        options: ['allow', 'deny'],
      });
      const answer = await agents.daemon.control(
        'POST',
        `/v1/sessions/${info.id}/permissions/${permission.requestId}`,
        { outcome: 'deny' },
      );
      expect(answer.status).toBe(200);
      const events = await turn.ended;
      expect(events.at(-1)?.type).toBe('end');
      expect(await upstreamCalls()).toBe(callsBefore);
      const again = await agents.daemon.control(
        'POST',
        `/v1/sessions/${info.id}/permissions/${permission.requestId}`,
        { outcome: 'allow' },
      );
      expect(again.status).toBe(404);
      await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
    },
    120_000,
  );

  it('ends a turn whose permission request nobody answers after the permission timeout', async () => {
    const info = await start('codex', 'ask');
    model.script(callConnectorTool('first_echo', { text: 'nobody answers' }));
    const callsBefore = await upstreamCalls();
    const { events } = await runTurn(agents, info.id, 'Use the echo tool.');
    expect(events.map((event) => event.type)).toContain('permission');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'error', code: 'TUTTI_ERR_TURN_PERMISSION_TIMEOUT' }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'end' });
    expect(await upstreamCalls()).toBe(callsBefore);
    await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
  }, 120_000);

  it('answers bad turn requests: unknown or closed sessions, a second turn, a prompt that is none', async () => {
    const unknown = await runTurn(agents, 'no-such-session', 'hello');
    expect(unknown.status).toBe(404);
    const info = await start('codex', 'allow-connector');
    for (const prompt of [42, [], [{ type: 'audio', data: 'x' }], { text: 'hi' }]) {
      const bad = await runTurn(agents, info.id, prompt);
      expect(bad.status, JSON.stringify(prompt)).toBe(400);
      expect(bad.body).toMatchObject({ error: { code: 'TUTTI_ERR_TURN_BAD_PROMPT' } });
    }
    model.script(callConnectorTool('first_sleep', { ms: 60_000 }));
    const slow = await streamTurn(agents, info.id, 'Sleep.');
    await slow.next((event) => event.type === 'tool_call' && event.status === 'in_progress');
    const second = await runTurn(agents, info.id, 'And another thing.');
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: { code: 'TUTTI_ERR_TURN_BUSY' } });
    await agents.daemon.control('POST', `/v1/sessions/${info.id}/turns/cancel`);
    await slow.ended;
    await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
    const closed = await runTurn(agents, info.id, 'hello');
    expect(closed.status).toBe(404);
  }, 120_000);

  it('ends the turn of an agent that dies in its middle with an error naming it, and stays up', async () => {
    const info = await agents.startSession({
      provider: 'acp',
      workspaceId: 'ws-dies',
      cwd: agents.agentEnv.cwd,
      env: { ...agents.env, FAULT: 'exit-on-prompt' },
      launch: { command: process.execPath, args: [FAULTY, 'acp'] },
      permissions: 'agent',
    });
    const { status, events } = await runTurn(agents, info.id, 'Do something.');
    expect(status).toBe(200);
    const error = events.find((event) => event.type === 'error') as TurnEvent & { message: string };
    expect(error).toMatchObject({ code: 'TUTTI_ERR_PROVIDER_AGENT_EXITED' });
    expect(error.message).toContain('"acp"');
    expect(error.message).toContain('giving up in the middle of a turn');
    expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'error' });
    await expect.poll(async () => (await agents.session(info.id))?.status, WAIT).toBe('exited');
    expect((await agents.daemon.control('GET', '/v1/sessions')).status).toBe(200);
    expect(join(agents.daemon.ready.home)).toBeTruthy();
  });
});
