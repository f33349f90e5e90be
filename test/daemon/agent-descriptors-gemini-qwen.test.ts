/**
 * The shipped gemini and qwen descriptors with the real agents through `tuttid` (see
 * `shipped-agent-suite.ts`). Gemini CLI is not loaded again at once: a load in the clock
 * minute its chat file is named for destroys the session, so its kept history is checked
 * in the user's folder instead. Gemini CLI's folder trust (without it no MCP server is
 * contacted) is turned on only by the session's named setting or the user's own
 * trustedFolders.json, never silently.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { expectBoundAndListed } from '@tutti/test-kit/agent-daemon';
import { gemini, qwen } from '@tutti/test-kit/descriptor-agents';
import { shippedAgentSuite } from '@tutti/test-kit/shipped-agent-suite';

/** The environment the agent process `pid` was started with. */
async function environOf(pid: number): Promise<Record<string, string>> {
  const text = await readFile(`/proc/${pid}/environ`, 'utf8');
  return Object.fromEntries(
    text
      .split('\0')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

shippedAgentSuite(
  'shipped descriptors: gemini and qwen',
  [gemini, qwen],
  {
    gemini: {
      refresh: 'resume-or-restart',
      refreshWithoutTurn: 'resume-or-restart',
      loadsAfterEnd: false,
    },
    qwen: {
      refresh: 'resume-or-restart',
      refreshWithoutTurn: 'resume-or-restart',
      loadsAfterEnd: true,
      labelsCalls: false,
    },
  },
  (context) => {
    it("trusts the session folder only when the session request or the user's own config says so", async () => {
      const { agents, start } = context();
      const registry = await agents.registry();
      // Asked for by the session request: the descriptor's named setting.
      const asked = await start(gemini);
      await expectBoundAndListed(agents, asked, 'gemini', registry);
      expect((await environOf(asked.pid!)).GEMINI_CLI_TRUST_WORKSPACE).toBe('true');
      expect((await agents.daemon.control('DELETE', `/v1/sessions/${asked.id}`)).status).toBe(200);

      // Not asked for: the daemon does not trust the folder on the user's behalf.
      const silent = await start(gemini, { settings: [] });
      expect((await environOf(silent.pid!)).GEMINI_CLI_TRUST_WORKSPACE).toBeUndefined();
      expect((await agents.daemon.control('DELETE', `/v1/sessions/${silent.id}`)).status).toBe(200);

      // The user's own trustedFolders.json, linked into the session home, is honoured.
      const trusted = join(agents.agentEnv.home, '.gemini', 'trustedFolders.json');
      await writeFile(trusted, JSON.stringify({ [agents.agentEnv.cwd]: 'TRUST_FOLDER' }));
      try {
        const user = await start(gemini, { settings: [] });
        await expectBoundAndListed(agents, user, 'gemini', registry);
        expect((await environOf(user.pid!)).GEMINI_CLI_TRUST_WORKSPACE).toBeUndefined();
        expect((await agents.daemon.control('DELETE', `/v1/sessions/${user.id}`)).status).toBe(200);
      } finally {
        await rm(trusted, { force: true });
      }
    }, 120_000);
  },
);
