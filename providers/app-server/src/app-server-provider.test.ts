/**
 * The app-server provider inside the real session host, against the real loopback
 * `connector` server and the real `codex` binary (a fake Responses endpoint stands in for
 * the model, so no model is called).
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentTestEnv, createAgentTestEnv } from '@tutti/test-kit/agent-env';
import { type ConnectorStack, startConnectorStack } from '@tutti/test-kit/connector-stack';
import {
  type FakeResponsesServer,
  startFakeResponsesServer,
} from '@tutti/test-kit/fake-responses-server';
import { CODEX_BIN, NODE_BIN_DIR, WAIT } from '@tutti/test-kit';
import { type AppServerProviderSession, createAppServerProvider } from './app-server-provider.js';
import { createCodexDescriptor } from './descriptor.js';

describe('app-server provider in the session host', () => {
  let env: AgentTestEnv;
  let stack: ConnectorStack;
  let model: FakeResponsesServer;

  beforeEach(async () => {
    env = await createAgentTestEnv();
    stack = await startConnectorStack();
    model = await startFakeResponsesServer();
    const userHome = join(env.root, 'user-codex-home');
    await mkdir(userHome);
    await writeFile(
      join(userHome, 'config.toml'),
      `model = "fake-model"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${model.baseUrl}"\nwire_api = "responses"\n`,
    );
    stack.install((host) =>
      host.registerProvider(
        createAppServerProvider(createCodexDescriptor({ command: CODEX_BIN, userHome })),
      ),
    );
  });

  afterEach(async () => {
    await stack.close();
    await model.close();
    await env.dispose();
  });

  it('serves the registry tools to a new thread and refreshes it before the next turn', async () => {
    stack.commitDemoTools(['echo']);
    const info = await stack.host.createSession({
      provider: 'codex',
      workspaceId: 'ws',
      cwd: env.cwd,
      env: { ...env.env, PATH: `${NODE_BIN_DIR}:${env.env.PATH}` },
    });
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    const session = stack.sessions[0] as AppServerProviderSession;
    const { engine, providerSessionId: threadId } = session;

    const [status] = await engine.mcpServerStatus({ threadId, serverName: 'connector' });
    expect(Object.keys(status?.tools ?? {})).toEqual(['demo_echo']);
    const result = await engine.callTool(threadId, 'connector', 'demo_echo', { text: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'demo-echo:hi' }]);

    const turnsDone: unknown[] = [];
    engine.onNotification((n) => {
      if (n.method === 'turn/completed') turnsDone.push(n.params);
    });
    await engine.startTurn(threadId, 'first');
    await expect.poll(() => turnsDone.length, WAIT).toBe(1);

    stack.commitDemoTools(['echo', 'added']);
    await expect
      .poll(() => stack.host.listSessions()[0]?.lastRefresh?.strategy)
      .toBe('reconnect-before-turn');
    await engine.startTurn(threadId, 'second');
    await expect.poll(() => turnsDone.length, WAIT).toBe(2);

    const connectorTools = (index: number) =>
      model.toolNamesPerRequest[index]?.filter((name) => name.startsWith('mcp__connector')).sort();
    expect(connectorTools(0)).toEqual(['mcp__connector/demo_echo']);
    expect(connectorTools(1)).toEqual(['mcp__connector/demo_added', 'mcp__connector/demo_echo']);
  });

  it('revokes the token and removes the session home when the host closes the session', async () => {
    stack.commitDemoTools(['echo']);
    const info = await stack.host.createSession({
      provider: 'codex',
      workspaceId: 'ws',
      cwd: env.cwd,
      env: { ...env.env, PATH: `${NODE_BIN_DIR}:${env.env.PATH}` },
    });
    const { engine } = stack.sessions[0] as AppServerProviderSession;
    const dir = engine.home.dir;
    const config = await readFile(engine.home.configPath, 'utf8');
    const token = /Bearer ([\w-]+)/.exec(config)?.[1] ?? '';
    expect(stack.tokens.verify(token)).toMatchObject({ agentSessionId: info.id });

    await stack.host.closeSession(info.id);

    expect(stack.tokens.verify(token)).toBeUndefined();
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
