/**
 * Host-driven sessions: a host that spawns its agent itself asks `POST /v1/sessions` with a
 * provider and `"mode": "prepare"` for that provider's projection, starts the real agent
 * from the projection alone, and the agent lists the connector's tools with the session's
 * token. After a tool change `GET /v1/events` tells the host what to do for its provider
 * (opencode: reload with the new params; Codex: reconnect before the next turn; Claude
 * Code: nothing, it re-lists by itself), and doing it makes the new tools appear.
 */
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp, CODEX_BIN, NODE_BIN_DIR, WAIT_BOUND_MS } from '@tutti/test-kit';
import { AGENT_POLL, type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import { OPENCODE_OFFLINE } from '@tutti/test-kit/agent-env';
import { type EventReader, openEvents } from '@tutti/test-kit/event-stream';
import { type LineRpc, spawnLineRpc } from '@tutti/test-kit/line-rpc';
import { CLAUDE_CODE_BIN as CLAUDE } from '@tutti/test-kit/paths';

interface Prepared {
  session: { id: string };
  runtime: { cwd: string; env: Record<string, string> };
  projection: { params: Record<string, unknown>; env: Record<string, string> };
}

describe('host-driven sessions with the real agents', () => {
  let agents: AgentDaemon;
  let events: EventReader;
  const spawned: LineRpc[] = [];
  let second = 0;

  beforeAll(async () => {
    agents = await startAgentDaemon();
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    events = await openEvents(agents.daemon);
  });

  afterEach(async () => {
    await Promise.all(spawned.splice(0).map((rpc) => rpc.close()));
  });

  afterAll(async () => {
    events?.close();
    await agents?.dispose();
    await cleanUp();
  });

  async function prepare(body: Record<string, unknown>): Promise<Prepared> {
    const answer = await agents.daemon.control('POST', '/v1/sessions', {
      mode: 'prepare',
      cwd: agents.agentEnv.cwd,
      env: agents.env,
      ...body,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as Prepared;
  }

  /** Waits until the session's agent listed the registry as it is now, with its token. */
  async function listedNow(id: string) {
    const { version, toolCount } = await agents.registry();
    await expect
      .poll(async () => (await agents.session(id))?.toolsListed, AGENT_POLL)
      .toMatchObject({ version, toolCount });
  }

  /** Installs one more connector and resolves the refresh event of session `id`. */
  async function changeTools(id: string) {
    const from = events.events.length;
    second += 1;
    await agents.install(await writeRelease({ key: `more${second}`, serverArgs: [] }));
    return events.waitFor((event) => event.type === 'session.refreshed' && event.session === id, {
      from,
    });
  }

  it('starts opencode from its ACP projection, and reloads it with the params the events point to', async () => {
    const opencode = spawnLineRpc(join(NODE_BIN_DIR, 'opencode'), ['acp'], {
      cwd: agents.agentEnv.cwd,
      env: { ...agents.env, ...OPENCODE_OFFLINE },
      jsonrpc: true,
    });
    spawned.push(opencode);
    const initialize = await opencode.request<{ agentCapabilities: Record<string, unknown> }>(
      'initialize',
      { protocolVersion: 1, clientCapabilities: {} },
    );
    const prepared = await prepare({
      provider: 'opencode',
      workspaceId: 'ws-host-opencode',
      agentCapabilities: initialize.agentCapabilities,
    });
    expect(prepared.projection.params.mcpServers).toMatchObject([
      { type: 'http', name: 'connector', url: agents.daemon.ready.mcpUrl },
    ]);
    const { sessionId } = await opencode.request<{ sessionId: string }>(
      'session/new',
      prepared.projection.params,
      WAIT_BOUND_MS,
    );
    await listedNow(prepared.session.id);
    const identified = await agents.daemon.control('PATCH', `/v1/sessions/${prepared.session.id}`, {
      providerSessionId: sessionId,
    });
    expect(identified.body.session).toMatchObject({ mode: 'host', providerSessionId: sessionId });

    const refreshed = await changeTools(prepared.session.id);
    expect(refreshed).toMatchObject({ strategy: 'native-reload', action: 'reload' });
    const { projection } = (
      await agents.daemon.control('GET', `/v1/sessions/${prepared.session.id}/projection`)
    ).body as Prepared;
    expect(projection.params.sessionId).toBe(sessionId);
    await opencode.request('session/resume', projection.params, 60_000);
    await listedNow(prepared.session.id);
  }, 120_000);

  it('starts codex from its prepared home, and reconnects it before its next turn when the events say so', async () => {
    const prepared = await prepare({ provider: 'codex', workspaceId: 'ws-host-codex' });
    expect(Object.keys(prepared.projection.env)).toEqual(['CODEX_HOME']);
    const start = async () => {
      const codex = spawnLineRpc(CODEX_BIN, ['app-server'], {
        cwd: prepared.runtime.cwd,
        env: { ...prepared.runtime.env, ...prepared.projection.env },
        jsonrpc: false,
      });
      spawned.push(codex);
      await codex.request('initialize', {
        clientInfo: { name: 'host-test', title: null, version: '1.0.0' },
        capabilities: { experimentalApi: false },
      });
      codex.notify('initialized', {});
      await codex.request('thread/start', { cwd: prepared.runtime.cwd });
      return codex;
    };
    const first = await start();
    await listedNow(prepared.session.id);

    const refreshed = await changeTools(prepared.session.id);
    expect(refreshed).toMatchObject({
      strategy: 'reconnect-before-turn',
      action: 'reconnect-before-turn',
    });
    await first.close();
    await start();
    await listedNow(prepared.session.id);
  }, 120_000);

  it('starts Claude Code from its SDK options, which re-lists by itself after a change', async () => {
    const prepared = await prepare({
      provider: 'claude-sdk',
      workspaceId: 'ws-host-claude',
      env: { ...agents.env, IS_SANDBOX: '1' },
    });
    const options = prepared.projection.params as Parameters<typeof query>[0]['options'];
    const never = (async function* () {
      await new Promise(() => {});
    })() as AsyncIterable<never>;
    const claude = query({
      prompt: never,
      options: { ...options, pathToClaudeCodeExecutable: CLAUDE },
    });
    try {
      await claude.initializationResult();
      await listedNow(prepared.session.id);
      const refreshed = await changeTools(prepared.session.id);
      expect(refreshed).toMatchObject({ strategy: 'list-changed', action: 'none' });
      await listedNow(prepared.session.id);
    } finally {
      claude.close();
    }
  }, 120_000);

  it('removes a host-driven session and revokes its token on DELETE', async () => {
    const prepared = await prepare({ provider: 'codex', workspaceId: 'ws-host-delete' });
    const config = prepared.projection.params as {
      mcp_servers: { connector: { http_headers: { Authorization: string } } };
    };
    const token = config.mcp_servers.connector.http_headers.Authorization.slice('Bearer '.length);
    expect(await agents.listStatus(token)).toBe(200);
    const closed = await agents.daemon.control('DELETE', `/v1/sessions/${prepared.session.id}`);
    expect(closed.status).toBe(200);
    expect(await agents.listStatus(token)).toBe(401);
    const { access } = await import('node:fs/promises');
    await expect(access(prepared.projection.env.CODEX_HOME!)).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
