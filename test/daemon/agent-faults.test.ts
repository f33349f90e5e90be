/**
 * No agent can take the daemon down. Every fault an agent can make (exit at once, exit
 * after initialize, exit in the middle of a request, garbage on stdout, a 10 MB line, a
 * closed stdin, no answer, a flood of notifications) is run against every provider kind
 * (ACP, app-server, Claude SDK) through a real `tuttid`: each is answered with a clear
 * error naming the provider, what happened and the agent's last stderr lines (credentials
 * redacted), no agent process is left, and a healthy session's tool calls keep working
 * throughout.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessGroupAlive, isProcessRunning } from '@tutti/core/internal';
import { writeRelease, cleanUp, FIXTURES, CODEX_BIN, WAIT, mcpRequest } from '@tutti/test-kit';
import { type AgentDaemon, bearerTokens, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import { runTurn } from '@tutti/test-kit/agent-turns';

const FAULTY = join(FIXTURES, 'agents/faulty-agent.mjs');
const FAULTY_CLAUDE = join(FIXTURES, 'agents/faulty-claude');
const SCRIPTED_ACP = join(FIXTURES, 'acp/scripted-agent.mjs');
/** The daemon's agent timeout in these tests: how long "never answers" takes to fail. */
const AGENT_TIMEOUT_MS = 4_000;

const FAULTS = [
  'exit-at-once',
  'exit-after-initialize',
  'exit-mid-request',
  'garbage',
  'huge-line',
  'close-stdin',
  'never-answer',
  'flood',
] as const;

/** How each provider kind is pointed at the faulty agent. */
const KINDS = {
  acp: { provider: 'acp', launch: { command: process.execPath, args: [FAULTY, 'acp'] } },
  'app-server': {
    provider: 'codex',
    launch: { command: process.execPath, args: [FAULTY, 'app-server'] },
  },
  'claude-sdk': { provider: 'claude-sdk', launch: { command: FAULTY_CLAUDE } },
} as const;

describe('agent faults through tuttid', () => {
  let agents: AgentDaemon;
  let healthyToken: string;
  let calls = 0;
  const failedCalls: string[] = [];
  let calling = true;
  let caller: Promise<void>;

  const callTool = async () => {
    const binding = {
      url: agents.daemon.ready.mcpUrl,
      headers: { authorization: `Bearer ${healthyToken}` },
    };
    const { status, body } = await mcpRequest(binding, 'tools/call', {
      name: 'first_echo',
      arguments: { text: 'still here' },
    });
    calls += 1;
    if (status !== 200 || !body.result || body.result.isError) {
      failedCalls.push(`${status} ${JSON.stringify(body).slice(0, 200)}`);
    }
  };

  beforeAll(async () => {
    agents = await startAgentDaemon({ args: ['--agent-timeout', String(AGENT_TIMEOUT_MS)] });
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    const record = join(agents.agentEnv.root, 'healthy.jsonl');
    await agents.startSession({
      provider: 'acp',
      permissions: 'agent',
      workspaceId: 'ws-healthy',
      cwd: agents.agentEnv.cwd,
      env: agents.env,
      launch: {
        command: process.execPath,
        args: [SCRIPTED_ACP],
        env: { ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_RECORD: record },
      },
    });
    healthyToken = bearerTokens(await readFile(record, 'utf8'))[0]!;
    await callTool();
    caller = (async () => {
      while (calling) {
        await callTool();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
  });

  afterAll(async () => {
    calling = false;
    await caller;
    await agents?.dispose();
    await cleanUp();
  });

  /**
   * A start the agent answered before its fault (Claude Code can answer initialize, the
   * last step of its start, and exit in the same breath): the session must show it ended,
   * why, and its stderr; it is then closed. Returns the same shape as an error answer.
   */
  const endedSession = async (id: string) => {
    await expect.poll(async () => (await agents.session(id))?.status, WAIT).toBe('exited');
    const session = await agents.session(id);
    expect((await agents.daemon.control('DELETE', `/v1/sessions/${id}`)).status).toBe(200);
    return {
      code: 'TUTTI_ERR_PROVIDER_AGENT_EXITED',
      message: `"${session!.provider}" ${session!.reason}`,
    };
  };

  describe.each(Object.entries(KINDS))('%s', (kind, target) => {
    it.each(FAULTS)(
      'answers an agent that does "%s" with a clear error or an ended session, and leaves no process',
      async (fault) => {
        const record = join(agents.agentEnv.root, `${kind}-${fault}.pids`);
        const answer = await agents.daemon.control('POST', '/v1/sessions', {
          provider: target.provider,
          permissions: 'agent',
          workspaceId: `ws-${kind}-${fault}`,
          cwd: agents.agentEnv.cwd,
          env: { ...agents.env, FAULT: fault, FAULT_RECORD: record },
          launch: target.launch,
        });
        const { code, message } =
          answer.status === 200 ? await endedSession(answer.body.session.id) : answer.body.error;
        expect(code).toMatch(
          /^TUTTI_ERR_(PROVIDER_AGENT_EXITED|PROVIDER_AGENT_MISBEHAVED|SESSION_START_TIMEOUT|SESSION_START_FAILED)$/,
        );
        expect(message).toContain(`"${target.provider}"`);
        expect(message).toContain(`faulty-agent: ${fault}`);
        expect(message).toContain('OPENAI_API_KEY=[redacted]');
        expect(message).not.toContain('sk-test-');

        const pids = (await readFile(record, 'utf8')).split('\n').filter(Boolean).map(Number);
        expect(pids.length).toBeGreaterThan(0);
        for (const pid of pids) {
          expect(isProcessRunning(pid)).toBe(false);
          expect(isProcessGroupAlive(pid)).toBe(false);
        }
        const listed = (await agents.daemon.control('GET', '/v1/sessions')).body.sessions;
        expect(listed.map((session: { workspaceId: string }) => session.workspaceId)).toEqual([
          'ws-healthy',
        ]);
      },
    );

    it('lists a session whose agent ended later as exited, with its exit code and last stderr lines', async () => {
      const answer = await agents.daemon.control('POST', '/v1/sessions', {
        provider: target.provider,
        permissions: 'agent',
        workspaceId: `ws-${kind}-later`,
        cwd: agents.agentEnv.cwd,
        env: { ...agents.env, FAULT: 'exit-later' },
        launch: target.launch,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const id = answer.body.session.id as string;
      await expect.poll(async () => (await agents.session(id))?.status, WAIT).toBe('exited');
      const session = await agents.session(id);
      expect(session).toMatchObject({
        exit: { code: 4, signal: null, description: 'exit code 4' },
        reason: expect.stringContaining('exit code 4'),
      });
      expect(session!.exit!.stderr).toContain(`faulty-agent: exit-later (${kindProtocol(kind)})`);
      expect(session!.exit!.stderr.join('\n')).not.toContain('sk-test-');
      const closed = await agents.daemon.control('DELETE', `/v1/sessions/${id}`);
      expect(closed.status).toBe(200);
    });
  });

  /** Faults of an agent whose session started fine: the daemon notices them on its own. */
  const LATER_FAULTS = ['garbage-later', 'huge-line-later', 'flood-later'] as const;

  describe.each(Object.entries(KINDS))('%s after a healthy start', (kind, target) => {
    const open = async (fault: string) => {
      const record = join(agents.agentEnv.root, `${kind}-${fault}.pids`);
      const answer = await agents.daemon.control('POST', '/v1/sessions', {
        provider: target.provider,
        permissions: 'agent',
        workspaceId: `ws-${kind}-${fault}`,
        cwd: agents.agentEnv.cwd,
        env: { ...agents.env, FAULT: fault, FAULT_RECORD: record },
        launch: target.launch,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return { id: answer.body.session.id as string, record };
    };
    const noProcessLeft = async (record: string) => {
      const pids = (await readFile(record, 'utf8')).split('\n').filter(Boolean).map(Number);
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) {
        await expect.poll(() => isProcessGroupAlive(pid), WAIT).toBe(false);
      }
    };

    it.each(LATER_FAULTS)(
      'ends the session of an agent that starts "%s" with the reason, and leaves no process',
      async (fault) => {
        const { id, record } = await open(fault);
        await expect.poll(async () => (await agents.session(id))?.status, WAIT).toBe('exited');
        const session = await agents.session(id);
        expect(session!.reason).toBeTruthy();
        expect(JSON.stringify(session)).not.toContain('sk-test-');
        await noProcessLeft(record);
        expect((await agents.daemon.control('DELETE', `/v1/sessions/${id}`)).status).toBe(200);
      },
    );

    it('answers a turn of an agent that closed its stdin after a healthy start, and stays up', async () => {
      const { id, record } = await open('close-stdin-later');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const turn = await runTurn(agents, id, 'are you there?');
      const text = JSON.stringify(turn.body);
      if (turn.status === 200) {
        expect(turn.events.at(-1)).toMatchObject({ type: 'end', stopReason: 'error' });
        expect(turn.events.some((event) => event.type === 'error')).toBe(true);
      } else {
        expect(text).toMatch(/"code":"TUTTI_ERR_/);
      }
      expect(text).toContain(target.provider);
      expect(text).not.toContain('sk-test-');
      expect((await agents.daemon.control('DELETE', `/v1/sessions/${id}`)).status).toBe(200);
      await noProcessLeft(record);
    });
  });

  it('answers the provider whose agent is /bin/false, or whose node is not on PATH, and stays up', async () => {
    const falsy = await agents.daemon.control('POST', '/v1/sessions', {
      provider: 'codex',
      workspaceId: 'ws-false',
      cwd: agents.agentEnv.cwd,
      launch: { command: '/bin/false' },
    });
    expect(falsy.status).toBe(502);
    expect(falsy.body.error).toMatchObject({
      code: 'TUTTI_ERR_PROVIDER_AGENT_EXITED',
      message: expect.stringContaining('exit code 1'),
    });
    // The codex npm wrapper starts with `#!/usr/bin/env node`.
    const nodeless = await agents.daemon.control('POST', '/v1/sessions', {
      provider: 'codex',
      workspaceId: 'ws-nodeless',
      cwd: agents.agentEnv.cwd,
      env: { ...agents.env, PATH: '/nonexistent' },
      launch: { command: CODEX_BIN },
    });
    expect(nodeless.status).toBe(502);
    expect(nodeless.body.error.code).toBe('TUTTI_ERR_PROVIDER_AGENT_EXITED');
    expect(nodeless.body.error.message).toContain('exit code 127');
    expect(nodeless.body.error.message).toContain('node');
    expect(agents.daemon.child.exitCode).toBeNull();
  });

  it('kept serving the healthy session and its tool calls through every fault', async () => {
    await callTool();
    expect(failedCalls).toEqual([]);
    expect(calls).toBeGreaterThan(FAULTS.length);
    const listed = (await agents.daemon.control('GET', '/v1/sessions')).body.sessions;
    expect(listed).toMatchObject([{ workspaceId: 'ws-healthy', status: 'ready' }]);
    expect(agents.daemon.child.exitCode).toBeNull();
    expect(agents.daemon.stderr()).not.toContain('sk-test-');
  });
});

function kindProtocol(kind: string): string {
  return kind === 'claude-sdk' ? 'claude' : kind === 'app-server' ? 'app-server' : 'acp';
}
