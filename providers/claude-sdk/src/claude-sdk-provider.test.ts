/**
 * The Claude SDK provider inside the real session host, against the real loopback
 * `connector` server and the Claude Code binary bundled with the Agent SDK. No turn is
 * sent, so no model is called.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentTestEnv, createAgentTestEnv } from '@tutti/test-kit/agent-env';
import { type ConnectorStack, startConnectorStack } from '@tutti/test-kit/connector-stack';
import { type ClaudeSdkProviderSession, createClaudeSdkProvider } from './claude-sdk-provider.js';

describe('Claude SDK provider in the session host', () => {
  let env: AgentTestEnv;
  let stack: ConnectorStack;

  beforeEach(async () => {
    env = await createAgentTestEnv();
    stack = await startConnectorStack();
    stack.install((host) =>
      host.registerProvider(
        createClaudeSdkProvider({ userOptions: { settingSources: [], strictMcpConfig: true } }),
      ),
    );
  });

  afterEach(async () => {
    await stack.close();
    await env.dispose();
  });

  async function start(): Promise<ClaudeSdkProviderSession> {
    const info = await stack.host.createSession({
      provider: 'claude-sdk',
      workspaceId: 'ws',
      cwd: env.cwd,
      env: { ...env.env, IS_SANDBOX: '1' },
    });
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    return stack.sessions[0] as ClaudeSdkProviderSession;
  }

  const connectorTools = async (session: ClaudeSdkProviderSession) => {
    const status = (await session.sdk.mcpServerStatus()).find((s) => s.name === 'connector');
    return (status?.tools ?? []).map((tool) => tool.name).sort();
  };

  it('shows the registry tools on connector, reached with the session token', async () => {
    stack.commitDemoTools(['echo']);
    const session = await start();
    const status = await session.sdk.waitForMcpServer('connector');
    expect(status.status).toBe('connected');
    expect(await connectorTools(session)).toEqual(['demo_echo']);
  });

  it('shows a tool committed while the session is live', async () => {
    stack.commitDemoTools(['echo']);
    const session = await start();
    await session.sdk.waitForMcpServer('connector');

    stack.commitDemoTools(['echo', 'added']);

    await expect.poll(() => connectorTools(session)).toEqual(['demo_added', 'demo_echo']);
    await expect
      .poll(() => stack.host.listSessions()[0]?.lastRefresh?.strategy)
      .toBe('native-reload');
  });
});
