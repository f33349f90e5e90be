/**
 * Every shipped agent asks the daemon before its own tools run, with the real effect
 * checked: Claude Code (Agent SDK), Codex and Tutti Agent (`app-server`), through a real
 * `tuttid` and the scripted model. A command whose text a prompt injection made look like
 * a connector tool is never taken for one.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, writeRelease } from '@tutti/test-kit';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import {
  expectAllowsOnlyConnector,
  expectAsksUnderAsk,
  type PermissionCase,
  SHELL,
  type ShellTool,
} from '@tutti/test-kit/agent-permissions';
import { type TurnAgent, turnAgents } from '@tutti/test-kit/agent-turns';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';

const AGENTS: readonly { agent: TurnAgent; shell: ShellTool }[] = [
  { agent: 'claude-sdk', shell: SHELL.claude },
  { agent: 'codex', shell: SHELL.codex },
  { agent: 'tutti-agent', shell: SHELL.codex },
];

describe('every agent asks the daemon before its own tools run', () => {
  let agents: AgentDaemon;
  let model: ScriptedModel;
  let bodies: Awaited<ReturnType<typeof turnAgents>>;

  beforeAll(async () => {
    model = await startScriptedModel();
    // An unexpected ask ends the turn in 30 s instead of hanging the test.
    agents = await startAgentDaemon({ args: ['--permission-timeout', '30000'] });
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    bodies = await turnAgents(agents, model);
    // The workspace's own settings would let every command run: the daemon ignores them.
    const cwd = agents.agentEnv.cwd;
    await mkdir(join(cwd, '.claude'), { recursive: true });
    await writeFile(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash', 'Bash(*)', 'mcp__connector'] } }),
    );
    await mkdir(join(cwd, '.codex', 'rules'), { recursive: true });
    await writeFile(
      join(cwd, '.codex', 'rules', 'default.rules'),
      'prefix_rule(pattern=["touch"], decision="allow")\n',
    );
  });

  afterAll(async () => {
    await agents?.dispose();
    await model?.close();
    await cleanUp();
  });

  const permissionCase = (agent: TurnAgent, shell: ShellTool): PermissionCase => ({
    agents,
    model,
    shell,
    cwd: agents.agentEnv.cwd,
    labelsCalls: true,
    labelsPermissions: true,
    start: (permissions) =>
      agents.startSession({
        workspaceId: `ws-perm-${agent}`,
        cwd: agents.agentEnv.cwd,
        permissions,
        ...bodies[agent],
      }),
  });

  it.each(AGENTS)(
    '$agent asks for its shell and a connector tool under ask; denied, the command has no effect',
    async ({ agent, shell }) => {
      await expectAsksUnderAsk(permissionCase(agent, shell), agent);
    },
    240_000,
  );

  it.each(AGENTS)(
    '$agent under allow-connector asks for a command written to look like a connector tool, and runs connector tools unasked',
    async ({ agent, shell }) => {
      await expectAllowsOnlyConnector(permissionCase(agent, shell), agent);
    },
    240_000,
  );

  it('shows the permission mode of each session, and takes agent as a mode of its own', async () => {
    const info = await agents.startSession({
      workspaceId: 'ws-perm-mode',
      cwd: agents.agentEnv.cwd,
      permissions: 'agent',
      ...bodies.codex,
    });
    expect(info.permissions).toBe('agent');
    expect((await agents.session(info.id))?.permissions).toBe('agent');
    await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
  }, 120_000);
});
