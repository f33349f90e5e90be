/**
 * Every provider's projection runs through its own hooks, as the real agents see it: a
 * third-party plugin tapping a provider's `sessionNew` / `sessionLoad` / `sessionResume`
 * sees the `connector` binding in that provider's own params (ACP session request, Codex
 * config table, Claude SDK options), and what it adds reaches the real agent, which lists
 * the connector's tools with the session's token; a tap that drops the binding fails the
 * session with TUTTI_ERR_PROVIDER_BINDING_DROPPED and leaves no agent running.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessRunning } from '@tutti/core/internal';
import { writeRelease, cleanUp, FIXTURES, NODE_BIN_DIR } from '@tutti/test-kit';
import {
  type AgentDaemon,
  bearerTokens,
  expectBoundAndListed,
  startAgentDaemon,
} from '@tutti/test-kit/agent-daemon';
import { writeStdinTap } from '@tutti/test-kit/agent-stdin-tap';
import { CLAUDE_CODE_BIN as CLAUDE } from '@tutti/test-kit/paths';

const AUDIT_PLUGIN = `${FIXTURES}plugins/audit-plugin.mjs`;

interface AuditLine {
  provider: string;
  hook: string;
  session: string;
  binding: unknown;
}

describe('provider hooks with the real agents', () => {
  let agents: AgentDaemon;
  let record: string;

  beforeAll(async () => {
    record = join(tmpdir(), `tutti-audit-${process.pid}-${Date.now()}.jsonl`);
    agents = await startAgentDaemon({
      plugins: { 'audit-plugin.mjs': await readFile(AUDIT_PLUGIN, 'utf8') },
      env: { AUDIT_PROVIDERS: 'opencode,codex,claude-sdk,acp', AUDIT_RECORD: record },
    });
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
  });

  afterAll(async () => {
    await agents?.dispose();
    await rm(record, { force: true });
    await cleanUp();
  });

  const audited = async (session: string): Promise<AuditLine[]> =>
    (await readFile(record, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditLine)
      .filter((line) => line.session === session);

  /** Starts a session, checks the agent listed the tools with its token, returns it. */
  async function bound(provider: string, body: Record<string, unknown>) {
    const before = await agents.registry();
    const info = await agents.startSession({
      provider,
      workspaceId: `ws-${provider}`,
      cwd: agents.agentEnv.cwd,
      env: agents.env,
      ...body,
    });
    await expectBoundAndListed(agents, info, provider, before);
    return info;
  }

  const close = async (id: string) =>
    expect((await agents.daemon.control('DELETE', `/v1/sessions/${id}`)).status).toBe(200);

  it('hands the tap the ACP session request with the binding, and opencode gets what it added', async () => {
    const tap = await writeStdinTap(
      agents.agentEnv.root,
      'opencode-hooks',
      join(NODE_BIN_DIR, 'opencode'),
    );
    const info = await bound('opencode', { launch: { command: tap.command, args: ['acp'] } });
    const [line] = await audited(info.id);
    const [token] = bearerTokens(await readFile(tap.recorded, 'utf8'));
    expect(line).toMatchObject({
      provider: 'opencode',
      hook: 'sessionNew',
      binding: {
        type: 'http',
        name: 'connector',
        url: agents.daemon.ready.mcpUrl,
        headers: [{ name: 'Authorization', value: `Bearer ${token}` }],
      },
    });
    const sent = (await readFile(tap.recorded, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method?: string; params?: { _meta?: { audit?: string } } });
    expect(sent.find((m) => m.method === 'session/new')?.params?._meta?.audit).toBe('tap-added');
    await close(info.id);

    // The same session again, through sessionLoad and then sessionResume, each with a new token.
    for (const [operation, hook] of [
      ['load', 'sessionLoad'],
      ['resume', 'sessionResume'],
    ] as const) {
      const again = await bound('opencode', {
        launch: { command: tap.command, args: ['acp'] },
        [operation]: { providerSessionId: info.providerSessionId },
      });
      expect(again.providerSessionId).toBe(info.providerSessionId);
      expect(await audited(again.id)).toMatchObject([{ provider: 'opencode', hook }]);
      await close(again.id);
    }
  }, 120_000);

  it('hands the tap the Codex config table with the binding, and config.toml carries what it added', async () => {
    const info = await bound('codex', {});
    const [line] = await audited(info.id);
    const sessions = join(agents.daemon.ready.home, 'sessions');
    const [home] = (await readdir(sessions)).filter((name) => name.startsWith('tutti-codex-'));
    const config = await readFile(join(sessions, home!, 'config.toml'), 'utf8');
    const [token] = bearerTokens(config);
    expect(line).toMatchObject({
      provider: 'codex',
      hook: 'sessionNew',
      binding: {
        url: agents.daemon.ready.mcpUrl,
        http_headers: { Authorization: `Bearer ${token}` },
      },
    });
    expect(config).toContain('project_doc_max_bytes = 12_345');
    await close(info.id);
  });

  it('hands the tap the Claude SDK options with the binding, and Claude Code gets what it added', async () => {
    const tap = await writeStdinTap(agents.agentEnv.root, 'claude-hooks', CLAUDE);
    const info = await bound('claude-sdk', {
      env: { ...agents.env, IS_SANDBOX: '1' },
      launch: { command: tap.command },
    });
    const [line] = await audited(info.id);
    const [token] = bearerTokens(await readFile(tap.recorded, 'utf8'));
    expect(line).toMatchObject({
      provider: 'claude-sdk',
      hook: 'sessionNew',
      binding: {
        type: 'http',
        url: agents.daemon.ready.mcpUrl,
        headers: { Authorization: `Bearer ${token}` },
      },
    });
    const environ = (await readFile(`/proc/${info.pid}/environ`, 'utf8')).split('\0');
    expect(environ).toContain('AUDIT_MARK=tap-added');
    await close(info.id);
  });

  it('binds claude-agent-acp through the ACP hooks, the tap seeing its binding', async () => {
    const tap = await writeStdinTap(
      agents.agentEnv.root,
      'claude-agent-acp-hooks',
      join(NODE_BIN_DIR, 'claude-agent-acp'),
    );
    const info = await bound('acp', {
      permissions: 'agent',
      launch: {
        command: tap.command,
        env: { IS_SANDBOX: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      },
    });
    const [line] = await audited(info.id);
    const [token] = bearerTokens(await readFile(tap.recorded, 'utf8'));
    expect(line).toMatchObject({
      provider: 'acp',
      hook: 'sessionNew',
      binding: { headers: [{ name: 'Authorization', value: `Bearer ${token}` }] },
    });
    await close(info.id);
  });

  it.each([
    ['opencode', { launch: { args: ['acp'] } }],
    ['codex', {}],
    ['claude-sdk', { env: { IS_SANDBOX: '1' } }],
  ])(
    'fails a %s session whose binding a tap drops, naming the tap, with no agent left',
    async (provider, body) => {
      const pidsBefore = (await agents.daemon.control('GET', '/v1/sessions')).body.sessions.length;
      const answer = await agents.daemon.control('POST', '/v1/sessions', {
        provider,
        workspaceId: `ws-drop-${provider}`,
        cwd: agents.agentEnv.cwd,
        ...body,
        env: { ...agents.env, ...(body as { env?: object }).env, AUDIT_DROP: '1' },
      });
      expect(answer.status).toBe(500);
      expect(answer.body.error.code).toBe('TUTTI_ERR_PROVIDER_BINDING_DROPPED');
      expect(answer.body.error.message).toContain('Tap "audit-plugin" of hook "sessionNew"');
      expect(answer.body.error.message).not.toMatch(/Bearer/);
      const sessions = (await agents.daemon.control('GET', '/v1/sessions')).body.sessions;
      expect(sessions).toHaveLength(pidsBefore);
      const stray = (await readdir('/proc'))
        .filter((entry) => /^\d+$/.test(entry))
        .filter((pid) => isProcessRunning(Number(pid)));
      for (const pid of stray) {
        const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
        expect(environ.includes('AUDIT_DROP=1'), `process ${pid} still runs`).toBe(false);
      }
    },
  );
});
