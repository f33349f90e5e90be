/**
 * Errors a person can act on, with real agents through `tuttid`: a model API that refuses
 * a turn is an `error` event (never the agent's apology as text and a normal end), and an
 * agent that cannot start without a login says so in one sentence, with what to set, and
 * names no log that does not exist.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, writeRelease } from '@tutti/test-kit';
import { startToolServer, type ToolServer } from '@tutti/test-kit/tool-server';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import { runTurn, turnAgents } from '@tutti/test-kit/agent-turns';
import { codexAcp, qwen } from '@tutti/test-kit/descriptor-agents';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';

describe('errors a person can act on', () => {
  let agents: AgentDaemon;
  let model: ScriptedModel;
  let mine: ToolServer;
  let bodies: Awaited<ReturnType<typeof turnAgents>>;

  beforeAll(async () => {
    model = await startScriptedModel();
    mine = await startToolServer([{ name: 'mine', answer: 'user-mine' }]);
    agents = await startAgentDaemon();
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    bodies = await turnAgents(agents, model);
  });

  afterAll(async () => {
    await agents?.dispose();
    await model?.close();
    await mine?.close();
    await cleanUp();
  });

  it('ends a claude-sdk turn whose model API refuses it with an error event, not text', async () => {
    const info = await agents.startSession({
      workspaceId: 'ws-model-error',
      cwd: agents.agentEnv.cwd,
      permissions: 'allow-connector',
      ...bodies['claude-sdk'],
      // Claude Code retries a refused request ten times, for minutes, by default.
      env: { ...bodies['claude-sdk'].env, CLAUDE_CODE_MAX_RETRIES: '0' },
    });
    model.script(() => ({ httpError: 401 }));
    const { events } = await runTurn(agents, info.id, 'Hello?');
    expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'error' });
    const error = events.find((event) => event.type === 'error') as unknown as {
      code: string;
      message: string;
    };
    expect(error.code, JSON.stringify(events)).toBe('TUTTI_ERR_TURN_MODEL_FAILED');
    expect(error.message).toContain('HTTP 401');
    expect(events.filter((event) => event.type === 'text')).toEqual([]);
    expect(error.message).not.toMatch(/\.\.|\blogs?\b/);
    await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
  }, 120_000);

  it('says in one sentence what an ACP agent that needs a login lacks, with the variables to set', async () => {
    // codex-acp with no key, no login and the default model provider: auth required.
    const body = await codexAcp.setUp(agents, model, mine);
    const config = join(agents.codexHome, 'config.toml');
    const saved = await readFile(config, 'utf8');
    await writeFile(config, saved.replace(/^model_provider = .*$/m, ''));
    try {
      const answer = await agents.daemon.control('POST', '/v1/sessions', {
        provider: 'codex-acp',
        workspaceId: 'ws-no-login',
        cwd: agents.agentEnv.cwd,
        ...body,
        env: agents.env,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(502);
      const { code, message } = answer.body.error as { code: string; message: string };
      expect(code).toBe('TUTTI_ERR_PROVIDER_AGENT_AUTH');
      expect(message).toContain('OPENAI_API_KEY');
      expect(message).not.toMatch(/\.\.|\blogs?\b|jsonrpc/i);
    } finally {
      await writeFile(config, saved);
    }
  }, 120_000);

  it('says what Qwen Code lacks without its JSON-RPC dump', async () => {
    const body = await qwen.setUp(agents, model, mine);
    const { OPENAI_API_KEY: _key, ...env } = body.env as Record<string, string>;
    const answer = await agents.daemon.control('POST', '/v1/sessions', {
      provider: 'qwen',
      workspaceId: 'ws-qwen-no-key',
      cwd: agents.agentEnv.cwd,
      ...body,
      env,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(502);
    const { code, message } = answer.body.error as { code: string; message: string };
    expect(code).toBe('TUTTI_ERR_PROVIDER_AGENT_AUTH');
    expect(message).toContain('OPENAI_API_KEY');
    expect(message).not.toMatch(/\.\.|\blogs?\b|jsonrpc|Error handling request/i);
  }, 120_000);
});
