/**
 * No agent process is left behind by a real `tuttid`: agent process groups are registered
 * with the daemon's reaper, so SIGKILL of the daemon takes them down (a grandchild that
 * ignores SIGTERM included), and `DELETE /v1/sessions/:id` answers only once the agent's
 * whole group is gone. The scripted ACP agent starts a stubborn grandchild; opencode (an
 * npm wrapper around a native binary) is the real agent.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '@tutti/test-kit';
import {
  isProcessGroupAlive,
  isProcessRunning,
  signalGroup,
  waitForGroupExit,
} from '@tutti/core/internal';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';

const SCRIPTED_AGENT = `${FIXTURES}acp/scripted-agent.mjs`;
/** Bound for the reaper (2 s grace, then SIGKILL) to finish after the daemon died. */
const REAP_BOUND_MS = 15_000;
/** Each test starts a daemon and opencode (about 20 s on a busy machine). */
const TEST_TIMEOUT_MS = 90_000;

/** Agent process groups started by a test, killed in the cleanup if anything is left. */
const groups: number[] = [];

interface StartRecord {
  kind: 'start';
  pid: number;
  grandchildPid: number;
}

describe('agent process groups under tuttid', () => {
  let agents: AgentDaemon | undefined;

  afterEach(async () => {
    for (const pgid of groups.splice(0)) {
      if (isProcessGroupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
    }
    await agents?.dispose();
    agents = undefined;
  });

  /** Starts a session of the scripted agent with a grandchild that ignores SIGTERM. */
  async function startScripted(daemon: AgentDaemon, name: string) {
    const record = join(daemon.agentEnv.root, `${name}.jsonl`);
    const info = await daemon.startSession({
      provider: 'acp',
      permissions: 'agent',
      workspaceId: `ws-${name}`,
      cwd: daemon.agentEnv.cwd,
      env: daemon.env,
      launch: {
        command: process.execPath,
        args: [SCRIPTED_AGENT],
        env: {
          ACP_SCRIPT_HTTP: 'true',
          ACP_SCRIPT_GRANDCHILD: 'stubborn',
          ACP_SCRIPT_RECORD: record,
        },
      },
    });
    groups.push(info.pid!);
    const start = (await readFile(record, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as StartRecord)
      .find((entry) => entry.kind === 'start')!;
    expect(start.pid).toBe(info.pid);
    expect(isProcessRunning(start.grandchildPid)).toBe(true);
    return { info, grandchildPid: start.grandchildPid };
  }

  async function startOpencode(daemon: AgentDaemon) {
    const info = await daemon.startSession({
      provider: 'opencode',
      workspaceId: 'ws-opencode',
      cwd: daemon.agentEnv.cwd,
      env: daemon.env,
    });
    groups.push(info.pid!);
    expect(isProcessGroupAlive(info.pid!)).toBe(true);
    return info;
  }

  it(
    'takes every agent process group down when the daemon is killed with SIGKILL',
    async () => {
      agents = await startAgentDaemon();
      const scripted = await startScripted(agents, 'scripted');
      const opencode = await startOpencode(agents);

      agents.daemon.child.kill('SIGKILL');
      await agents.daemon.exited;

      // Only the reaper is left to notice the daemon's death.
      expect(await waitForGroupExit(scripted.info.pid!, REAP_BOUND_MS)).toBe(true);
      expect(isProcessRunning(scripted.grandchildPid)).toBe(false);
      expect(await waitForGroupExit(opencode.pid!, REAP_BOUND_MS)).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers DELETE /v1/sessions/:id only once the agent process group is gone',
    async () => {
      agents = await startAgentDaemon();
      const scripted = await startScripted(agents, 'scripted');
      const opencode = await startOpencode(agents);

      for (const info of [scripted.info, opencode]) {
        const closed = await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
        expect(closed).toMatchObject({ status: 200, body: { closed: info.id } });
        // No polling: the answer came after the whole group was gone.
        expect(isProcessGroupAlive(info.pid!)).toBe(false);
      }
      // The grandchild ignored SIGTERM, so it was the SIGKILL after the grace that ended it.
      expect(isProcessRunning(scripted.grandchildPid)).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});
