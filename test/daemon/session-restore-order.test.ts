/**
 * When the sessions of the previous daemon come back, with real `tuttid` processes and a
 * real agent (opencode over ACP, behind a stdin tap that records what the daemon sent it):
 * only once every connector made its first attempt, so a slow connector's tools are there
 * for the resumed agent's first tools/list; and once only when two daemons race to start
 * on the home (the loser exits with TUTTI_ERR_DAEMON_ALREADY_RUNNING and touches no
 * session record).
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentSessionInfo } from '@tutti/core';
import { cleanUp, writeRelease, NODE_BIN_DIR, WAIT_BOUND_MS } from '@tutti/test-kit';
import { AGENT_POLL, type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import { writeStdinTap } from '@tutti/test-kit/agent-stdin-tap';
import { runTurn, turnAgents } from '@tutti/test-kit/agent-turns';
import { openEvents } from '@tutti/test-kit/event-stream';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';
import {
  attachTuttid,
  launchTuttid,
  type ReadyLine,
  type TuttidProcess,
  waitForConnector,
} from '@tutti/test-kit/tuttid';

let agents: AgentDaemon | undefined;
let model: ScriptedModel | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await agents?.dispose();
  agents = undefined;
  await model?.close();
  model = undefined;
  await cleanUp();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** How many times the daemons asked the tapped agent to resume or load a session. */
async function resumesIn(recorded: string): Promise<number> {
  const text = await readFile(recorded, 'utf8');
  return (text.match(/"method":"session\/(resume|load)"/g) ?? []).length;
}

/**
 * Starts an opencode session behind a stdin tap on `agents`' daemon, and takes a turn, so
 * the next daemon resumes it (one that had no turn starts afresh).
 */
async function tappedSession(
  daemon: AgentDaemon,
): Promise<{ info: AgentSessionInfo; recorded: string }> {
  model ??= await startScriptedModel();
  const { opencode } = await turnAgents(daemon, model);
  const tap = await writeStdinTap(daemon.agentEnv.root, 'opencode', join(NODE_BIN_DIR, 'opencode'));
  const info = await daemon.startSession({
    provider: 'opencode',
    workspaceId: 'ws-restore-order',
    cwd: daemon.agentEnv.cwd,
    env: opencode.env,
    launch: { command: tap.command, args: ['acp'] },
  });
  expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
  const turn = await runTurn(daemon, info.id, 'Hello.');
  expect(turn.events.at(-1), JSON.stringify(turn.events)).toEqual({
    type: 'end',
    stopReason: 'end_turn',
  });
  return { info, recorded: tap.recorded };
}

/** Names, sizes and modification times of every session record file of `home`. */
async function recordFiles(home: string): Promise<Record<string, string>> {
  const dir = join(home, 'sessions', 'records');
  const files: Record<string, string> = {};
  for (const name of await readdir(dir)) {
    const info = await stat(join(dir, name));
    files[name] = `${info.size} ${info.mtimeMs}`;
  }
  return files;
}

describe('restoring the sessions of the previous daemon', () => {
  it('waits until the connectors settled, so a slow connector is in the first tools/list', async () => {
    const gateDir = await mkdtemp(join(tmpdir(), 'tutti-gate-'));
    dirs.push(gateDir);
    const gate = join(gateDir, 'open');
    await writeFile(gate, '');
    agents = await startAgentDaemon({
      installed: [
        await writeRelease({ key: 'first', serverArgs: [] }),
        await writeRelease({
          key: 'gated',
          serverArgs: ['--start-gate', gate],
          startTimeoutMs: 120_000,
        }),
      ],
    });
    const { info, recorded } = await tappedSession(agents);

    // The next daemon finds the gated connector slow to start.
    await rm(gate);
    const daemon = await agents.restart('SIGKILL', { until: 'ready' });
    const events = await openEvents(daemon, { since: 0 });
    try {
      await waitForConnector(daemon, 'first');
      expect((await daemon.control('GET', '/v1/connectors')).body.connectors).toContainEqual(
        expect.objectContaining({
          key: 'gated',
          runtime: expect.objectContaining({ state: 'starting' }),
        }),
      );
      // Nothing of the session came back while a connector is still on its first attempt.
      const waiting = (await daemon.control('GET', '/v1/sessions')).body;
      expect(waiting.restoring).toBe(true);
      expect(waiting.sessions).toEqual([]);
      expect(await resumesIn(recorded)).toBe(0);

      await writeFile(gate, '');
      const restored = await events.waitFor((event) => event.type === 'sessions.restored', {
        timeoutMs: WAIT_BOUND_MS,
      });
      expect(restored).toMatchObject({ resumed: 1, needsRestart: 0 });
      const gatedUp = events.events.find(
        (event) => event.type === 'connector.started' && event.key === 'gated',
      );
      expect(gatedUp).toBeDefined();
      expect(gatedUp!.id).toBeLessThan(restored.id);

      const registry = await agents.registry();
      expect(registry.names).toEqual(expect.arrayContaining(['first_echo', 'gated_echo']));
      await expect
        .poll(async () => (await agents!.session(info.id))?.toolsListed, AGENT_POLL)
        .toMatchObject({ version: registry.version, toolCount: registry.toolCount });
      expect(await agents.session(info.id)).toMatchObject({ status: 'ready', connector: 'bound' });
      expect(await resumesIn(recorded)).toBe(1);
    } finally {
      events.close();
    }
  }, 180_000);

  it.each([0, 500])(
    'happens once when two daemons start %i ms apart on the home, and the loser touches no record',
    async (apartMs) => {
      agents = await startAgentDaemon({
        installed: [await writeRelease({ key: 'first', serverArgs: [] })],
      });
      const { info, recorded } = await tappedSession(agents);
      const home = agents.daemon.ready.home;
      agents.daemon.child.kill('SIGKILL');
      await agents.daemon.exited;
      const recordsBefore = await recordFiles(home);

      const first = launchTuttid(home, ['--no-demo']);
      await new Promise((resolve) => setTimeout(resolve, apartMs));
      const second = launchTuttid(home, ['--no-demo']);
      const [a, b] = await Promise.all([first.ready, second.ready]);
      const winner = a ? first : second;
      const loser = a ? second : first;
      expect([a, b].filter(Boolean)).toHaveLength(1);
      expect((await loser.exited).code).toBe(1);
      expect(loser.stderr()).toContain('TUTTI_ERR_DAEMON_ALREADY_RUNNING');
      expect(loser.stdout()).toBe('');
      const daemon: TuttidProcess = await attachTuttid(home, winner, (a ?? b) as ReadyLine);

      const events = await openEvents(daemon, { since: 0 });
      try {
        const restored = await events.waitFor((event) => event.type === 'sessions.restored', {
          timeoutMs: WAIT_BOUND_MS,
        });
        expect(restored).toMatchObject({ resumed: 1, needsRestart: 0 });
      } finally {
        events.close();
      }
      const { sessions } = (await daemon.control('GET', '/v1/sessions')).body as {
        sessions: AgentSessionInfo[];
      };
      expect(sessions.map((s) => [s.id, s.status])).toEqual([[info.id, 'ready']]);
      expect(await resumesIn(recorded)).toBe(1);
      // The loser ended before the winner restored anything: the records it could have
      // touched are the winner's alone, and a third start now changes none of them.
      const recordsAfter = await recordFiles(home);
      expect(Object.keys(recordsAfter)).toEqual(Object.keys(recordsBefore));
      const third = launchTuttid(home, ['--no-demo']);
      expect((await third.exited).code).toBe(1);
      expect(third.stderr()).toContain('TUTTI_ERR_DAEMON_ALREADY_RUNNING');
      expect(await recordFiles(home)).toEqual(recordsAfter);
      expect(await resumesIn(recorded)).toBe(1);
    },
    180_000,
  );
});
