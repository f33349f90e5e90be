/**
 * Agents get a working environment: a daemon-driven agent inherits the daemon's own
 * environment (minus its control variables and the nesting guards agents leave behind),
 * under the request's `env`, with the shim folder first on PATH, so a real agent started
 * with no `env` at all works. A connector upstream gets the proxy, CA, locale and temp
 * settings, and nothing else of the daemon's environment.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp, FIXTURES } from '@tutti/test-kit';
import {
  type AgentDaemon,
  expectBoundAndListed,
  startAgentDaemon,
} from '@tutti/test-kit/agent-daemon';

const SCRIPTED_ACP = `${FIXTURES}acp/scripted-agent.mjs`;

const DAEMON_ENV = {
  HTTPS_PROXY: 'http://127.0.0.1:9',
  LC_ALL: 'C.UTF-8',
  SOME_DAEMON_SETTING: 'daemon-only',
  CLAUDECODE: '1',
  CLAUDE_CODE_ENTRYPOINT: 'cli',
  TUTTI_CONTROL_HINT: 'daemon-only',
};

describe('agent and upstream environments under tuttid', () => {
  let agents: AgentDaemon;

  beforeAll(async () => {
    agents = await startAgentDaemon({ agentHome: true, env: DAEMON_ENV });
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
  });

  afterAll(async () => {
    await agents?.dispose();
    await cleanUp();
  });

  it('starts a real agent that was given no env at all, and binds it', async () => {
    const before = await agents.registry();
    const info = await agents.startSession({
      provider: 'codex',
      workspaceId: 'ws-no-env',
      cwd: agents.agentEnv.cwd,
    });
    await expectBoundAndListed(agents, info, 'codex', before);
    expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
  });

  it("gives the agent the daemon's environment without its control variables or nesting guards, under the request's env", async () => {
    const record = join(agents.agentEnv.root, 'env.jsonl');
    const info = await agents.startSession({
      provider: 'acp',
      permissions: 'agent',
      workspaceId: 'ws-env',
      cwd: agents.agentEnv.cwd,
      env: { SOME_DAEMON_SETTING: 'from-the-request' },
      launch: {
        command: process.execPath,
        args: [SCRIPTED_ACP],
        env: { ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_RECORD: record },
      },
    });
    const start = JSON.parse((await readFile(record, 'utf8')).split('\n')[0]!) as {
      envKeys: string[];
      path: string;
      home: string;
    };
    expect(start.home).toBe(agents.agentEnv.home);
    expect(start.path.split(':')[0]).toBe(join(agents.daemon.ready.home, 'bin'));
    expect(start.envKeys).toEqual(
      expect.arrayContaining(['HOME', 'PATH', 'HTTPS_PROXY', 'LC_ALL', 'SOME_DAEMON_SETTING']),
    );
    for (const name of ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'TUTTI_CONTROL_HINT']) {
      expect(start.envKeys).not.toContain(name);
    }
    const environ = await readFile(`/proc/${info.pid}/environ`, 'utf8');
    expect(environ.split('\0')).toContain('SOME_DAEMON_SETTING=from-the-request');
    expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
  });

  it('hands a connector upstream the proxy, locale and temp settings and nothing else of the daemon', async () => {
    const prepared = await agents.daemon.control('POST', '/v1/sessions', {
      workspaceId: 'ws-upstream-env',
      cwd: agents.agentEnv.cwd,
    });
    const token = prepared.body.runtime.mcpServers[0].headers.Authorization as string;
    const response = await fetch(agents.daemon.ready.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: token,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'first_env_keys', arguments: {} },
      }),
    });
    const body = (await response.json()) as { result: { content: { text: string }[] } };
    const keys = JSON.parse(body.result.content[0]!.text) as string[];
    expect(keys).toEqual(
      expect.arrayContaining(['HTTPS_PROXY', 'LC_ALL', 'TMPDIR', 'PATH', 'HOME']),
    );
    for (const name of ['SOME_DAEMON_SETTING', 'CLAUDECODE', 'TUTTI_CONTROL_HINT']) {
      expect(keys).not.toContain(name);
    }
  });
});
