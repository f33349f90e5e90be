/**
 * Real turns of real agents through the daemon's turn API, against a scripted model on
 * loopback: Claude Code (Agent SDK, with its default tool search), `codex app-server`,
 * Tutti Agent (the codex binary on its own home variable) and `opencode acp`. In each, the
 * agent's own tool loop calls a connector tool through its native MCP client; a connector
 * installed while the session is idle is usable in the next turn, whose model request still
 * holds the first turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp } from '@tutti/test-kit';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import {
  callConnectorTool,
  runTurn,
  type TurnAgent,
  type TurnEvent,
  turnAgents,
} from '@tutti/test-kit/agent-turns';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';

const AGENTS: TurnAgent[] = ['claude-sdk', 'codex', 'tutti-agent', 'opencode'];

describe('turns of real agents through tuttid', () => {
  let agents: AgentDaemon;
  let model: ScriptedModel;
  let bodies: Awaited<ReturnType<typeof turnAgents>>;
  let installed = 0;

  beforeAll(async () => {
    model = await startScriptedModel();
    agents = await startAgentDaemon();
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    bodies = await turnAgents(agents, model);
  });

  afterAll(async () => {
    await agents?.dispose();
    await model?.close();
    await cleanUp();
  });

  /**
   * The connector calls of a turn, by local tool name. opencode names its tools in no field
   * of its own, so its calls are never labelled `connector`: they show its own tool name.
   */
  const connectorCalls = (agent: TurnAgent, events: TurnEvent[]) =>
    events
      .filter((event) =>
        agent === 'opencode'
          ? event.type === 'tool_call' &&
            event.server === '' &&
            String(event.tool).startsWith('connector_')
          : event.type === 'tool_call' && event.server === 'connector',
      )
      .map((event) =>
        agent === 'opencode'
          ? { ...event, tool: String(event.tool).slice('connector_'.length) }
          : event,
      );

  it.each(AGENTS)(
    '%s calls a connector tool in its own tool loop, then one of a connector installed while it was idle',
    async (agent) => {
      const info = await agents.startSession({
        workspaceId: `ws-turn-${agent}`,
        cwd: agents.agentEnv.cwd,
        permissions: 'allow-connector',
        ...bodies[agent],
      });
      model.script(callConnectorTool('first_echo', { text: `hello from ${agent}` }));
      const first = await runTurn(agents, info.id, 'Please use the first_echo tool.');
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const events = first.events;
      expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
      const call = connectorCalls(agent, events).find((event) => event.tool === 'first_echo');
      expect(call, JSON.stringify(events)).toBeDefined();
      expect(events).toContainEqual({ type: 'tool_result', callId: call!.callId, isError: false });
      const text = events
        .filter((event) => event.type === 'text')
        .map((event) => event.text)
        .join('');
      // The fixture's echo answers its arguments: the upstream saw what the model asked.
      expect(text).toContain('The tool said:');
      expect(text).toContain(`hello from ${agent}`);
      expect(events.some((event) => event.type === 'permission')).toBe(false);

      installed += 1;
      const key = `later${installed}`;
      await agents.install(await writeRelease({ key, serverArgs: [] }));
      model.script(callConnectorTool(`${key}_echo`, { text: 'second turn' }));
      const requestsBefore = model.requests.length;
      const second = await runTurn(agents, info.id, `Now use the ${key}_echo tool.`);
      expect(second.events.at(-1), JSON.stringify(second.events)).toEqual({
        type: 'end',
        stopReason: 'end_turn',
      });
      expect(connectorCalls(agent, second.events).map((event) => event.tool)).toContain(
        `${key}_echo`,
      );
      const secondRequests = model.requests.slice(requestsBefore);
      const last = secondRequests[secondRequests.length - 1]!;
      expect(last.transcript).toContain('Please use the first_echo tool.');
      expect(last.transcript).toContain(`hello from ${agent}`);
      expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
    },
    180_000,
  );
});
