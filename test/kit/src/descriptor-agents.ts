/**
 * The shipped ACP agent descriptors as tests start them through `tuttid` (test support):
 * for each agent, the user's own setup it finds in the test's HOME (an MCP server of the
 * user's, global instructions, a skill: each with a mark the model request must show), and
 * what it needs offline in the session request (a dummy key, the scripted model's loopback
 * URL; never a real credential). The descriptors themselves are the shipped ones.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolServer } from './tool-server.js';
import type { AgentDaemon } from './agent-daemon.js';
import { turnAgents } from './agent-turns.js';
import type { ScriptedModel } from './scripted-model.js';

/** Marks of the user's own setup, expected in the model's request. */
export const USER_INSTRUCTIONS_MARK = 'USER-INSTRUCTIONS-MARK';
export const USER_SKILL_MARK = 'USERSKILLMARK';

/** A connector skill with a mark in its description. */
export const CONNECTOR_SKILL =
  '---\nname: first-notes\ndescription: Take notes with the first connector (FIRSTSKILLMARK).\n---\nUse first_echo.\n';

const USER_SKILL = `---\nname: user-skill\ndescription: The user own skill (${USER_SKILL_MARK}).\n---\nbody\n`;

/** A shipped descriptor's agent as the tests drive it. */
export interface DescriptorAgent {
  readonly provider: string;
  /** The user's own folder of the agent (where its config, skills and history live). */
  userFolder(agents: AgentDaemon): string;
  /** The user's instructions file, relative to {@link userFolder}. */
  readonly instructions: string;
  /** The folder (relative to {@link userFolder}) where the agent keeps what a load reads. */
  readonly history: string;
  /**
   * Writes the user's own setup (the MCP server `mine`, instructions, a skill) and the
   * offline model setup; returns the session request fields that start the agent.
   */
  setUp(
    agents: AgentDaemon,
    model: ScriptedModel,
    mine: ToolServer,
  ): Promise<Record<string, unknown>>;
}

async function write(path: string, text: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
}

/** Writes the user's instructions and skill into `folder`. */
async function userFiles(folder: string, instructions: string): Promise<void> {
  await write(
    join(folder, instructions),
    `${USER_INSTRUCTIONS_MARK}: the user global instructions.\n`,
  );
  await write(join(folder, 'skills', 'user-skill', 'SKILL.md'), USER_SKILL);
}

export const claudeAgentAcp: DescriptorAgent = {
  provider: 'claude-agent-acp',
  userFolder: (agents) => join(agents.agentEnv.home, '.claude'),
  instructions: 'CLAUDE.md',
  history: 'projects',
  async setUp(agents, model, mine) {
    const home = agents.agentEnv.home;
    await write(
      join(home, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        mcpServers: {
          mine: { type: 'http', url: mine.url, headers: { Authorization: `Bearer ${mine.token}` } },
        },
      }),
    );
    await userFiles(join(home, '.claude'), 'CLAUDE.md');
    return {
      env: {
        ...agents.env,
        IS_SANDBOX: '1',
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'test-key',
      },
    };
  },
};

export const codexAcp: DescriptorAgent = {
  provider: 'codex-acp',
  // The daemon's own CODEX_HOME is the user's codex folder its sessions start from.
  userFolder: (agents) => agents.codexHome,
  instructions: 'AGENTS.md',
  history: 'sessions',
  async setUp(agents, model, mine) {
    // config.toml with the scripted model provider, as for the app-server provider.
    await turnAgents(agents, model);
    const config = join(agents.codexHome, 'config.toml');
    if (!(await readFile(config, 'utf8')).includes('[mcp_servers.mine]')) {
      await appendFile(
        config,
        `\n[mcp_servers.mine]\nurl = "${mine.url}"\nhttp_headers = { Authorization = "Bearer ${mine.token}" }\n`,
      );
    }
    await userFiles(agents.codexHome, 'AGENTS.md');
    return { env: { ...agents.env, OPENAI_API_KEY: 'test-key' } };
  },
};

export const gemini: DescriptorAgent = {
  provider: 'gemini',
  userFolder: (agents) => join(agents.agentEnv.home, '.gemini'),
  instructions: 'GEMINI.md',
  history: 'tmp',
  async setUp(agents, model, mine) {
    const folder = join(agents.agentEnv.home, '.gemini');
    await write(
      join(folder, 'settings.json'),
      JSON.stringify({
        mcpServers: {
          mine: { httpUrl: mine.url, headers: { Authorization: `Bearer ${mine.token}` } },
        },
        privacy: { usageStatisticsEnabled: false },
      }),
    );
    await userFiles(folder, 'GEMINI.md');
    return {
      env: { ...agents.env, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: model.url },
      settings: ['trust-workspace'],
    };
  },
};

export const qwen: DescriptorAgent = {
  provider: 'qwen',
  userFolder: (agents) => join(agents.agentEnv.home, '.qwen'),
  instructions: 'QWEN.md',
  history: 'projects',
  async setUp(agents, model, mine) {
    const folder = join(agents.agentEnv.home, '.qwen');
    await write(
      join(folder, 'settings.json'),
      JSON.stringify({
        mcpServers: {
          mine: { httpUrl: mine.url, headers: { Authorization: `Bearer ${mine.token}` } },
        },
        security: { auth: { selectedType: 'openai' } },
        privacy: { usageStatisticsEnabled: false },
      }),
    );
    await userFiles(folder, 'QWEN.md');
    return {
      env: {
        ...agents.env,
        OPENAI_API_KEY: 'test-key',
        OPENAI_BASE_URL: `${model.url}/v1`,
        OPENAI_MODEL: 'scripted-model',
      },
    };
  },
};
