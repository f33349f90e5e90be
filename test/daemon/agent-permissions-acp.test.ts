/**
 * Every shipped ACP agent asks the daemon before its own tools run, with the real effect
 * checked (see `agent-permissions.ts`): opencode, Claude Code's and Codex's ACP adapters,
 * Gemini CLI and Qwen Code, from their shipped descriptors, through a real `tuttid` and the
 * scripted model. A command written to look like a connector tool (`connector_probe;
 * touch F`, a title ending `(connector MCP Server)`) is never taken for one.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { cleanUp, writeRelease } from '@tutti/test-kit';
import { startToolServer, type ToolServer } from '@tutti/test-kit/tool-server';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import {
  expectAllowsOnlyConnector,
  expectAsksUnderAsk,
  type PermissionCase,
  SHELL,
  type ShellTool,
} from '@tutti/test-kit/agent-permissions';
import { turnAgents } from '@tutti/test-kit/agent-turns';
import {
  claudeAgentAcp,
  codexAcp,
  type DescriptorAgent,
  gemini,
  qwen,
} from '@tutti/test-kit/descriptor-agents';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';

interface AcpCase {
  readonly provider: string;
  readonly agent?: DescriptorAgent;
  readonly shell: ShellTool;
  readonly labelsCalls: boolean;
  readonly labelsPermissions: boolean;
}

const AGENTS: readonly AcpCase[] = [
  // opencode names its tools in no field of its own: its own config decides what asks.
  { provider: 'opencode', shell: SHELL.opencode, labelsCalls: false, labelsPermissions: false },
  {
    provider: 'claude-agent-acp',
    agent: claudeAgentAcp,
    shell: SHELL.claude,
    labelsCalls: true,
    labelsPermissions: true,
  },
  {
    provider: 'codex-acp',
    agent: codexAcp,
    shell: SHELL.codex,
    labelsCalls: true,
    labelsPermissions: true,
  },
  {
    provider: 'gemini',
    agent: gemini,
    shell: SHELL.gemini,
    labelsCalls: true,
    labelsPermissions: true,
  },
  // Qwen calls MCP tools through its own tool_call: only the permission request names them.
  {
    provider: 'qwen',
    agent: qwen,
    shell: SHELL.gemini,
    labelsCalls: false,
    labelsPermissions: true,
  },
];

describe('every shipped ACP agent asks the daemon before its own tools run', () => {
  let agents: AgentDaemon;
  let model: ScriptedModel;
  let mine: ToolServer;
  const bodies = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    model = await startScriptedModel();
    mine = await startToolServer([{ name: 'mine', answer: 'user-mine' }]);
    agents = await startAgentDaemon({ args: ['--permission-timeout', '30000'] });
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    bodies.set('opencode', { ...(await turnAgents(agents, model)).opencode });
    // The workspace's own settings would let commands run unasked: the daemon overrides them.
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
    await writeFile(
      join(cwd, 'opencode.json'),
      JSON.stringify({ permission: { '*': 'allow', bash: 'allow' } }),
    );
    for (const { agent } of AGENTS) {
      if (agent) bodies.set(agent.provider, await agent.setUp(agents, model, mine));
    }
  }, 120_000);

  afterAll(async () => {
    await agents?.dispose();
    await model?.close();
    await mine?.close();
    await cleanUp();
  });

  const permissionCase = (c: AcpCase): PermissionCase => ({
    agents,
    model,
    shell: c.shell,
    cwd: agents.agentEnv.cwd,
    labelsCalls: c.labelsCalls,
    labelsPermissions: c.labelsPermissions,
    start: (permissions) =>
      agents.startSession({
        provider: c.provider,
        workspaceId: `ws-perm-${c.provider}`,
        cwd: agents.agentEnv.cwd,
        ...bodies.get(c.provider),
        permissions,
      }),
  });

  it.each(AGENTS)(
    '$provider asks for its shell and a connector tool under ask; denied, the command has no effect',
    async (c) => {
      await expectAsksUnderAsk(permissionCase(c), c.provider);
    },
    300_000,
  );

  it.each(AGENTS)(
    '$provider under allow-connector asks for a command written to look like a connector tool, and runs connector tools unasked',
    async (c) => {
      await expectAllowsOnlyConnector(permissionCase(c), c.provider);
    },
    300_000,
  );
});
