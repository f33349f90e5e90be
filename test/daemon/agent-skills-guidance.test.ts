/**
 * Connector skills and guidance reach each agent through its own mechanism, proven by what
 * the agent itself sends the model: Codex and Tutti Agent (their skill scanner through
 * `skills/extraRoots/set`, the guidance in `developer_instructions`), and Claude Code (a
 * local plugin its scanner loads, the guidance appended to its system prompt). The model
 * request shows the connector skill's name and description and the guidance text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp } from '@tutti/test-kit';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import { runTurn, type TurnAgent, turnAgents } from '@tutti/test-kit/agent-turns';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';

const SKILL =
  '---\nname: notes-style\ndescription: How to write notes with the first connector (NOTESSKILLMARK).\n---\nUse first_echo.\n';

describe('connector skills and guidance in the agents own mechanisms', () => {
  let agents: AgentDaemon;
  let model: ScriptedModel;
  let bodies: Awaited<ReturnType<typeof turnAgents>>;

  beforeAll(async () => {
    model = await startScriptedModel(() => ({ text: 'noted' }));
    agents = await startAgentDaemon();
    await agents.install(
      await writeRelease({ key: 'first', serverArgs: [], skills: { 'notes-style': SKILL } }),
    );
    bodies = await turnAgents(agents, model);
  });

  afterAll(async () => {
    await agents?.dispose();
    await model?.close();
    await cleanUp();
  });

  it.each(['codex', 'tutti-agent', 'claude-sdk'] as TurnAgent[])(
    '%s offers the model the connector skill and reads the guidance',
    async (agent) => {
      const info = await agents.startSession({
        workspaceId: `ws-skills-${agent}`,
        cwd: agents.agentEnv.cwd,
        ...bodies[agent],
      });
      const before = model.requests.length;
      const turn = await runTurn(agents, info.id, 'Say something.');
      expect(turn.events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
      const sent = model.requests
        .slice(before)
        .filter((request) => request.tools.length > 0)
        .map((request) => JSON.stringify(request.body))
        .join('\n');
      expect(sent).toContain('notes-style');
      expect(sent).toContain('NOTESSKILLMARK');
      expect(sent).toContain('Connectors available in this session:');
      expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
    },
    120_000,
  );
});
