/**
 * An upstream's elicitation reaches the host through a real agent and a real `tuttid`,
 * with the scripted model: the stdio fixture's `confirm_delete` asks "Delete 40 files?"
 * ({confirm: boolean}); the `connector` server relays it to Codex (app-server) or Claude
 * Code (Agent SDK), which hands it to the daemon's turn; the host sees an `elicitation`
 * event naming the connector and tool, lists it at `GET /v1/elicitations`, answers it with
 * `POST /v1/sessions/{id}/elicitations/{requestId}`, and the tool's result carries the
 * answer. Nobody answering cancels it after the permission timeout, and the turn goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, writeRelease } from '@tutti/test-kit';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import {
  callConnectorTool,
  streamTurn,
  type TurnAgent,
  type TurnEvent,
  turnAgents,
} from '@tutti/test-kit/agent-turns';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';

const PERMISSION_TIMEOUT_MS = 5_000;
const AGENTS = ['codex', 'claude-sdk'] as const satisfies readonly TurnAgent[];

type Elicitation = TurnEvent & { requestId: string };

describe('an upstream asks the person through a real agent', () => {
  let agents: AgentDaemon;
  let model: ScriptedModel;
  let bodies: Awaited<ReturnType<typeof turnAgents>>;
  let sessions = 0;

  beforeAll(async () => {
    model = await startScriptedModel();
    agents = await startAgentDaemon({
      args: ['--permission-timeout', String(PERMISSION_TIMEOUT_MS)],
    });
    await agents.install(await writeRelease({ key: 'files', serverArgs: [] }));
    bodies = await turnAgents(agents, model);
    model.script(callConnectorTool('files_confirm_delete', {}));
  });

  afterAll(async () => {
    await agents?.dispose();
    await model?.close();
    await cleanUp();
  });

  async function start(agent: TurnAgent) {
    sessions += 1;
    return agents.startSession({
      workspaceId: `ws-elicit-${sessions}`,
      cwd: agents.agentEnv.cwd,
      permissions: 'allow-connector',
      ...bodies[agent],
    });
  }

  /** The text the agent answered with (the model quotes the tool's result). */
  const textOf = (events: TurnEvent[]) =>
    events
      .filter((event) => event.type === 'text')
      .map((event) => String(event.text))
      .join('');

  it.each(AGENTS)(
    '%s: the host sees the elicitation, lists it, accepts it, and the tool deletes',
    async (agent) => {
      const info = await start(agent);
      const turn = await streamTurn(agents, info.id, 'Delete the 40 files.');
      const asked = (await turn.next(
        (event) => event.type === 'elicitation',
        120_000,
      )) as Elicitation;
      expect(asked).toMatchObject({
        server: 'connector',
        connector: 'files',
        tool: 'files_confirm_delete',
        mode: 'form',
        message: 'Delete 40 files?',
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
      });
      const listed = await agents.daemon.control('GET', '/v1/elicitations');
      expect(listed.body.elicitations).toContainEqual(
        expect.objectContaining({
          session: info.id,
          connector: 'files',
          tool: 'files_confirm_delete',
          message: 'Delete 40 files?',
          requestId: asked.requestId,
        }),
      );
      const answer = await agents.daemon.control(
        'POST',
        `/v1/sessions/${info.id}/elicitations/${asked.requestId}`,
        { action: 'accept', content: { confirm: true } },
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const events = await turn.ended;
      expect(textOf(events)).toContain('{"deleted":true}');
      expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
      const after = await agents.daemon.control('GET', '/v1/elicitations');
      expect(after.body.elicitations).toEqual([]);
      await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
    },
    240_000,
  );

  it.each(AGENTS)(
    '%s: a decline reaches the tool as a decline',
    async (agent) => {
      const info = await start(agent);
      const turn = await streamTurn(agents, info.id, 'Delete the 40 files.');
      const asked = (await turn.next(
        (event) => event.type === 'elicitation',
        120_000,
      )) as Elicitation;
      await agents.daemon.control(
        'POST',
        `/v1/sessions/${info.id}/elicitations/${asked.requestId}`,
        {
          action: 'decline',
        },
      );
      const events = await turn.ended;
      expect(textOf(events)).toContain('{"deleted":false,"action":"decline"}');
      await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
    },
    240_000,
  );

  it.each(AGENTS)(
    '%s: nobody answering cancels it after the permission timeout, and the turn goes on',
    async (agent) => {
      const info = await start(agent);
      const turn = await streamTurn(agents, info.id, 'Delete the 40 files.');
      const asked = (await turn.next(
        (event) => event.type === 'elicitation',
        120_000,
      )) as Elicitation;
      const events = await turn.ended;
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'error', code: 'TUTTI_ERR_TURN_ELICITATION_TIMEOUT' }),
      );
      expect(textOf(events)).toContain('{"deleted":false,"action":"cancel"}');
      expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
      const late = await agents.daemon.control(
        'POST',
        `/v1/sessions/${info.id}/elicitations/${asked.requestId}`,
        { action: 'accept', content: { confirm: true } },
      );
      expect(late.status).toBe(404);
      await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
    },
    240_000,
  );
});
