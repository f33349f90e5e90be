/**
 * The tests every shipped ACP agent descriptor passes with its real agent, through one
 * `tuttid` per file (test support): the session is bound and the agent lists the connector
 * tools with its token, while the user's own MCP server is still listed; a turn against the
 * scripted model shows the connector skill (name and description, as the agent's own
 * scanner offers it), the guidance text and the user's own instructions and skill; nothing
 * is written into the workspace and the session's files are gone when it ends, while the
 * history a later load reads stays in the user's folder; a connector installed later
 * reaches the live session the way the agent can take it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRelease } from './releases.js';
import { cleanUp } from './temp-dirs.js';
import type { AgentSessionInfo } from '@tutti/core';
import { startToolServer, type ToolServer } from './tool-server.js';
import {
  AGENT_POLL,
  type AgentDaemon,
  expectBoundAndListed,
  expectRefreshed,
  installSecondConnector,
  startAgentDaemon,
} from './agent-daemon.js';
import { callConnectorTool, runTurn } from './agent-turns.js';
import {
  CONNECTOR_SKILL,
  type DescriptorAgent,
  USER_INSTRUCTIONS_MARK,
  USER_SKILL_MARK,
} from './descriptor-agents.js';
import { type ScriptedModel, startScriptedModel } from './scripted-model.js';

/** What each agent is expected to do beyond what all do. */
export interface AgentExpectations {
  /** The strategy that refreshes a live session that has had a turn, after an install. */
  readonly refresh: string;
  /**
   * The strategy that refreshes a live session that has had no turn yet: an agent that
   * cannot reload a session with no history asks for a resume or restart.
   */
  readonly refreshWithoutTurn: string;
  /** A later session loads the ended one (false: only the kept history is checked). */
  readonly loadsAfterEnd: boolean;
  /**
   * Its calls of a connector tool are labelled `connector` (false for Qwen Code, which calls
   * MCP tools through its own `tool_call`: only its permission request names them).
   */
  readonly labelsCalls?: boolean;
}

/** Authorized `tools/list` requests the user's own server answered so far. */
function listedByUser(mine: ToolServer): number {
  return mine.requests.filter((request) => request.rpcMethod === 'tools/list' && request.authorized)
    .length;
}

/** Every file under `dir` (relative paths), following no links. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** What an agent's own tests get from the suite (after its `beforeAll`). */
export interface SuiteContext {
  readonly agents: AgentDaemon;
  readonly mine: ToolServer;
  /** Starts a session of `agent` as the suite does, `extra` fields replacing its own. */
  start(agent: DescriptorAgent, extra?: Record<string, unknown>): Promise<AgentSessionInfo>;
}

/**
 * Declares the suite for `list`, one daemon for all of it; `more` declares an agent's own
 * tests, run after the suite's.
 */
export function shippedAgentSuite(
  title: string,
  list: readonly DescriptorAgent[],
  expected: Readonly<Record<string, AgentExpectations>>,
  more?: (context: () => SuiteContext) => void,
): void {
  describe(title, () => {
    let agents: AgentDaemon;
    let model: ScriptedModel;
    let mine: ToolServer;
    const bodies = new Map<string, Record<string, unknown>>();
    const ended = new Map<string, string>();

    beforeAll(async () => {
      model = await startScriptedModel();
      mine = await startToolServer([{ name: 'mine', answer: 'user-mine' }]);
      agents = await startAgentDaemon();
      await agents.install(
        await writeRelease({
          key: 'first',
          serverArgs: [],
          skills: { 'first-notes': CONNECTOR_SKILL },
        }),
      );
      for (const agent of list) bodies.set(agent.provider, await agent.setUp(agents, model, mine));
    }, 60_000);

    afterAll(async () => {
      await agents?.dispose();
      await model?.close();
      await mine?.close();
      await cleanUp();
    });

    const start = (agent: DescriptorAgent, extra: Record<string, unknown> = {}) =>
      agents.startSession({
        provider: agent.provider,
        workspaceId: `ws-${agent.provider}`,
        cwd: agents.agentEnv.cwd,
        permissions: 'allow-connector',
        ...bodies.get(agent.provider),
        ...extra,
      });

    it.each(list)(
      '$provider reads the connector skill and guidance natively, beside the user own setup, and leaves no session file',
      async (agent) => {
        const workspace = await readdir(agents.agentEnv.cwd);
        const userInstructions = join(agent.userFolder(agents), agent.instructions);
        const instructionsBefore = await readFile(userInstructions, 'utf8');
        const registry = await agents.registry();
        const userListed = listedByUser(mine);

        const info = await start(agent);
        await expectBoundAndListed(agents, info, agent.provider, registry);
        const sessions = join(agents.daemon.ready.home, 'sessions');
        const folders = (await readdir(sessions)).filter((name) =>
          name.startsWith(`tutti-${agent.provider}-`),
        );
        expect(folders).toHaveLength(1);

        model.script(callConnectorTool('first_echo', { text: `from ${agent.provider}` }));
        const seen = model.requests.length;
        const turn = await runTurn(agents, info.id, 'Echo with the first connector.');
        expect(turn.events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
        expect(turn.events).toContainEqual(
          expected[agent.provider]!.labelsCalls === false
            ? expect.objectContaining({ type: 'tool_call', status: 'completed' })
            : expect.objectContaining({
                type: 'tool_call',
                server: 'connector',
                tool: 'first_echo',
                status: 'completed',
              }),
        );
        const text = turn.events
          .filter((event) => event.type === 'text')
          .map((event) => event.text)
          .join('');
        expect(text).toContain(`from ${agent.provider}`);
        // The user's own MCP server was listed by the agent in this session.
        await expect.poll(() => listedByUser(mine), AGENT_POLL).toBeGreaterThan(userListed);

        const sent = model.requests
          .slice(seen)
          .filter((request) => request.tools.length > 0 && !request.structured)
          .map((request) => JSON.stringify(request.body))
          .join('\n');
        for (const mark of [
          'first-notes',
          'FIRSTSKILLMARK',
          'Connectors available in this session:',
          USER_SKILL_MARK,
          USER_INSTRUCTIONS_MARK,
        ]) {
          expect(sent, mark).toContain(mark);
        }
        expect(await readdir(agents.agentEnv.cwd)).toEqual(workspace);

        expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
        expect(await readdir(sessions)).not.toContain(folders[0]);
        expect(await readFile(userInstructions, 'utf8')).toBe(instructionsBefore);
        const history = await filesUnder(join(agent.userFolder(agents), agent.history));
        expect(history.length, `${agent.history} of the user folder`).toBeGreaterThan(0);
        ended.set(agent.provider, info.providerSessionId!);
      },
      120_000,
    );

    it.each(list)(
      '$provider keeps the history of an ended session in the user folder',
      async (agent) => {
        const providerSessionId = ended.get(agent.provider);
        expect(providerSessionId, 'the first test ran').toBeDefined();
        if (!expected[agent.provider]!.loadsAfterEnd) {
          // The history the agent's load reads holds the first turn's tool answer.
          const history = await filesUnder(join(agent.userFolder(agents), agent.history));
          const texts = await Promise.all(history.map((file) => readFile(file, 'utf8')));
          expect(texts.some((text) => text.includes(`from ${agent.provider}`))).toBe(true);
          return;
        }
        const info = await start(agent, { load: { providerSessionId } });
        expect(info).toMatchObject({ status: 'ready', connector: 'bound', providerSessionId });
        model.script(() => ({ text: 'recalled' }));
        const seen = model.requests.length;
        const turn = await runTurn(agents, info.id, 'What did the tool say before?');
        expect(turn.events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
        const transcripts = model.requests
          .slice(seen)
          .filter((request) => request.tools.length > 0 && !request.structured)
          .map((request) => request.transcript);
        expect(transcripts.some((text) => text.includes(`from ${agent.provider}`))).toBe(true);
        expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
      },
      120_000,
    );

    it(`refreshes live sessions of ${list.map((agent) => agent.provider).join(' and ')} when a connector is installed`, async () => {
      const registry = await agents.registry();
      const live = [];
      for (const agent of list) {
        const used = await start(agent);
        await expectBoundAndListed(agents, used, agent.provider, registry);
        model.script(() => ({ text: 'ready' }));
        const turn = await runTurn(agents, used.id, 'Say ready.');
        expect(turn.events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
        const fresh = await start(agent);
        await expectBoundAndListed(agents, fresh, agent.provider, registry);
        live.push({ agent, used, fresh });
      }
      const after = await installSecondConnector(agents);
      for (const { agent, used, fresh } of live) {
        const { refresh, refreshWithoutTurn } = expected[agent.provider]!;
        for (const [info, strategy] of [
          [used, refresh],
          [fresh, refreshWithoutTurn],
        ] as const) {
          if (strategy !== 'resume-or-restart') {
            await expectRefreshed(agents, info, strategy, after);
            continue;
          }
          await expect
            .poll(async () => (await agents.session(info.id))?.lastRefresh?.strategy, AGENT_POLL)
            .toBe(strategy);
          expect(await agents.session(info.id)).toMatchObject({ status: 'needs-restart' });
        }
      }
      for (const { used, fresh } of live) {
        for (const info of [used, fresh]) {
          expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(
            200,
          );
        }
      }
    }, 180_000);

    more?.(() => ({ agents, mine, start }));
  });
}
