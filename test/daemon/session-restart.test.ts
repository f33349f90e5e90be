/**
 * Daemon-driven sessions of real agents come back after the daemon ends, by SIGKILL or by
 * SIGTERM: opencode (ACP `session/resume`), `codex app-server` (`thread/resume`) and Claude
 * Code through the Agent SDK (`resume`). Each took a turn against the scripted model before;
 * after the restart each is back, bound with a new token (the old one gets 401), lists the
 * connector's tools, and its next turn's model request still holds the turn from before. An
 * ACP agent that can neither resume nor load is listed `needs-restart` with the reason, and
 * the event stream says so; a session the user closed is never brought back.
 */
import { mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentSessionInfo } from '@tutti/core';
import { writeRelease, cleanUp, FIXTURES } from '@tutti/test-kit';
import {
  AGENT_POLL,
  type AgentDaemon,
  bearerTokensIn,
  processExists,
  startAgentDaemon,
} from '@tutti/test-kit/agent-daemon';
import { writeStdinTap } from '@tutti/test-kit/agent-stdin-tap';
import { callConnectorTool, runTurn, turnAgents } from '@tutti/test-kit/agent-turns';
import { openEvents } from '@tutti/test-kit/event-stream';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';
import { CLAUDE_CODE_BIN as CLAUDE } from '@tutti/test-kit/paths';

const FAULTY = `${FIXTURES}agents/faulty-agent.mjs`;
const OPENCODE = fileURLToPath(new URL('../../node_modules/.bin/opencode', import.meta.url));

type Restarted = 'opencode' | 'codex' | 'claude-sdk';
const SKILL =
  '---\nname: first-notes\ndescription: Notes with the first connector.\n---\nUse first_echo.\n';
const AGENTS: Restarted[] = ['opencode', 'codex', 'claude-sdk'];

describe('agent sessions across a daemon restart', () => {
  let agents: AgentDaemon | undefined;
  let model: ScriptedModel | undefined;

  afterEach(async () => {
    await agents?.dispose();
    agents = undefined;
    await model?.close();
    model = undefined;
    await cleanUp();
  });

  /** Where each agent's bearer tokens can be read, oldest first. */
  const tokensOf = async (
    daemon: AgentDaemon,
    agent: Restarted,
    recorded: Partial<Record<Restarted, string>>,
  ): Promise<string[]> => {
    if (agent !== 'codex') return bearerTokensIn(recorded[agent]!);
    const sessions = join(daemon.daemon.ready.home, 'sessions');
    const [home] = (await readdir(sessions)).filter((name) => name.startsWith('tutti-codex-'));
    return bearerTokensIn(join(sessions, home!, 'config.toml'));
  };

  it.each(['SIGKILL', 'SIGTERM'] as const)(
    'after %s each real agent is back, bound with a new token, and its next turn holds the one before',
    async (signal) => {
      model = await startScriptedModel();
      agents = await startAgentDaemon();
      // With a skill, as the demo connectors have: Claude Code's skills plugin folder survives.
      await agents.install(
        await writeRelease({ key: 'first', serverArgs: [], skills: { 'first-notes': SKILL } }),
      );
      const bodies = await turnAgents(agents, model);
      const opencodeTap = await writeStdinTap(agents.agentEnv.root, 'opencode', OPENCODE);
      const claudeTap = await writeStdinTap(agents.agentEnv.root, 'claude', CLAUDE);
      const recorded = { opencode: opencodeTap.recorded, 'claude-sdk': claudeTap.recorded };
      const launches: Partial<Record<Restarted, Record<string, unknown>>> = {
        opencode: { launch: { command: opencodeTap.command, args: ['acp'] } },
        'claude-sdk': { launch: { command: claudeTap.command } },
      };

      const sessions = new Map<Restarted, AgentSessionInfo>();
      const before = new Map<Restarted, string>();
      for (const agent of AGENTS) {
        const info = await agents.startSession({
          workspaceId: `ws-restart-${agent}`,
          cwd: agents.agentEnv.cwd,
          permissions: 'allow-connector',
          ...bodies[agent],
          ...launches[agent],
        });
        sessions.set(agent, info);
        model.script(callConnectorTool('first_echo', { text: `before the restart, ${agent}` }));
        const turn = await runTurn(agents, info.id, `Remember the word marmalade-${agent}.`);
        expect(turn.events.at(-1), JSON.stringify(turn.events)).toEqual({
          type: 'end',
          stopReason: 'end_turn',
        });
        const [token] = await tokensOf(agents, agent, recorded);
        expect(await agents.listStatus(token!)).toBe(200);
        before.set(agent, token!);
      }
      const pids = AGENTS.map((agent) => sessions.get(agent)!.pid!);
      // One the user closed before the restart must stay closed.
      const closed = await agents.startSession({
        workspaceId: 'ws-restart-closed',
        cwd: agents.agentEnv.cwd,
        ...bodies.codex,
      });
      expect((await agents.daemon.control('DELETE', `/v1/sessions/${closed.id}`)).status).toBe(200);

      await agents.restart(signal);
      // The agents of the ended daemon do not outlive it (SIGKILL: the subreaper's group kill).
      await expect.poll(() => pids.filter((pid) => processExists(pid)), AGENT_POLL).toEqual([]);

      const registry = await agents.registry();
      for (const agent of AGENTS) {
        const id = sessions.get(agent)!.id;
        await expect
          .poll(async () => {
            const session = await agents!.session(id);
            return session && { status: session.status, connector: session.connector };
          }, AGENT_POLL)
          .toEqual({ status: 'ready', connector: 'bound' });
        const back = (await agents.session(id))!;
        expect(back).toMatchObject({ provider: agent, mode: 'daemon' });
        expect(back.providerSessionId).toBe(sessions.get(agent)!.providerSessionId);
        const tokens = await tokensOf(agents, agent, recorded);
        const fresh = tokens.at(-1)!;
        expect(fresh).not.toBe(before.get(agent));
        expect(await agents.listStatus(before.get(agent)!)).toBe(401);
        expect(await agents.listStatus(fresh)).toBe(200);
        if (agent !== 'codex') {
          // Codex connects a resumed thread's MCP servers at its next turn.
          await expect
            .poll(async () => (await agents!.session(id))?.toolsListed?.toolCount, AGENT_POLL)
            .toBe(registry.toolCount);
        }

        model.script(callConnectorTool('first_echo', { text: `after the restart, ${agent}` }));
        const requestsBefore = model.requests.length;
        const turn = await runTurn(agents, id, 'What was the word?');
        expect(turn.status, JSON.stringify(turn.body)).toBe(200);
        expect(turn.events.at(-1), JSON.stringify(turn.events)).toEqual({
          type: 'end',
          stopReason: 'end_turn',
        });
        const requests = model.requests.slice(requestsBefore);
        expect(requests.at(-1)!.transcript).toContain(`marmalade-${agent}`);
        expect(requests.at(-1)!.transcript).toContain(`before the restart, ${agent}`);
      }
      expect(await agents.session(closed.id)).toBeUndefined();
      const printed = agents.daemon.stdout() + agents.daemon.stderr();
      for (const token of before.values()) expect(printed).not.toContain(token);
    },
    300_000,
  );

  it('starts each real agent that had no turn afresh after SIGTERM, bound, with the same id', async () => {
    model = await startScriptedModel();
    agents = await startAgentDaemon();
    await agents.install(
      await writeRelease({ key: 'first', serverArgs: [], skills: { 'first-notes': SKILL } }),
    );
    const bodies = await turnAgents(agents, model);
    const sessions = new Map<Restarted, AgentSessionInfo>();
    for (const agent of AGENTS) {
      sessions.set(
        agent,
        await agents.startSession({
          workspaceId: `ws-fresh-${agent}`,
          cwd: agents.agentEnv.cwd,
          permissions: 'allow-connector',
          ...bodies[agent],
        }),
      );
    }
    await agents.restart('SIGTERM');
    for (const agent of AGENTS) {
      const id = sessions.get(agent)!.id;
      await expect.poll(async () => (await agents!.session(id))?.status, AGENT_POLL).toBe('ready');
      expect(await agents.session(id)).toMatchObject({
        provider: agent,
        connector: 'bound',
        permissions: 'allow-connector',
      });
      model.script(callConnectorTool('first_echo', { text: `fresh ${agent}` }));
      const turn = await runTurn(agents, id, 'Echo.');
      expect(turn.events.at(-1), JSON.stringify(turn.events)).toEqual({
        type: 'end',
        stopReason: 'end_turn',
      });
    }
  }, 300_000);

  it('lists a session whose agent can neither resume nor load as needs-restart, with the reason, and restarts it afresh', async () => {
    agents = await startAgentDaemon();
    const info = await agents.startSession({
      provider: 'acp',
      workspaceId: 'ws-restart-unresumable',
      cwd: agents.agentEnv.cwd,
      env: { ...agents.env, FAULT: 'healthy' },
      launch: { command: process.execPath, args: [FAULTY, 'acp'] },
      permissions: 'agent',
    });
    expect(info.status).toBe('ready');
    // A session that had a turn is not started afresh on its own: it may have a history.
    expect((await runTurn(agents, info.id, 'hello')).events.at(-1)).toMatchObject({ type: 'end' });

    await agents.restart('SIGKILL');
    const events = await openEvents(agents.daemon, { since: 0 });
    try {
      const event = await events.waitFor(
        (event) => event.type === 'session.needs-restart' && event.session === info.id,
      );
      expect(event.reason).toMatch(/resume|load/);
      const listed = await agents.session(info.id);
      expect(listed).toMatchObject({ status: 'needs-restart', provider: 'acp' });
      expect(listed?.reason).toContain('could not come back after the daemon restarted');
    } finally {
      events.close();
    }
    const restarted = await agents.daemon.control('POST', `/v1/sessions/${info.id}/restart`);
    expect(restarted.status, JSON.stringify(restarted.body)).toBe(200);
    expect(restarted.body).toMatchObject({
      restartedAs: 'fresh',
      session: { id: info.id, status: 'ready', permissions: 'agent' },
    });
    const again = await agents.daemon.control('POST', `/v1/sessions/${info.id}/restart`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('TUTTI_ERR_SESSION_NOT_RESTARTABLE');
    // Closing it forgets it: the next daemon lists nothing.
    expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
    await agents.restart('SIGTERM');
    await expect
      .poll(async () => (await agents!.daemon.control('GET', '/v1/sessions')).body, AGENT_POLL)
      .toEqual({ sessions: [], restoring: false });
  }, 120_000);

  it('restarts a needs-restart session once its agent command is back, resumed with its conversation', async () => {
    model = await startScriptedModel();
    agents = await startAgentDaemon();
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    const bodies = await turnAgents(agents, model);
    // The agent's command as the session names it: a link that goes away and comes back.
    const links = join(agents.agentEnv.root, 'agent-bin');
    await mkdir(links, { recursive: true });
    const command = join(links, 'opencode');
    await symlink(OPENCODE, command);
    const info = await agents.startSession({
      workspaceId: 'ws-restart-later',
      cwd: agents.agentEnv.cwd,
      permissions: 'allow-connector',
      ...bodies.opencode,
      launch: { command, args: ['acp'] },
    });
    model.script(callConnectorTool('first_echo', { text: 'before, opencode' }));
    await runTurn(agents, info.id, 'Remember the word quince.');

    await rm(command);
    await agents.restart('SIGKILL');
    await expect
      .poll(async () => (await agents!.session(info.id))?.status, AGENT_POLL)
      .toBe('needs-restart');
    await symlink(OPENCODE, command);
    const restarted = await agents.daemon.control('POST', `/v1/sessions/${info.id}/restart`);
    expect(restarted.status, JSON.stringify(restarted.body)).toBe(200);
    expect(restarted.body).toMatchObject({
      restartedAs: 'resumed',
      session: { id: info.id, status: 'ready', connector: 'bound' },
    });
    model.script(callConnectorTool('first_echo', { text: 'after, opencode' }));
    const requestsBefore = model.requests.length;
    const turn = await runTurn(agents, info.id, 'What was the word?');
    expect(turn.events.at(-1), JSON.stringify(turn.events)).toEqual({
      type: 'end',
      stopReason: 'end_turn',
    });
    expect(model.requests.slice(requestsBefore).at(-1)!.transcript).toContain('quince');
  }, 300_000);
});
