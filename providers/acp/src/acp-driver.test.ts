import { afterEach, describe, expect, it } from 'vitest';
import type { AcpAgentDescriptor } from './descriptors.js';
import { closeAll, scriptedHost } from '@tutti/test-kit/scripted-acp';

afterEach(closeAll);

/** An agent that reads the instructions file of its home only when it starts. */
const START_READ: Partial<AcpAgentDescriptor> = {
  home: { env: 'AGENT_HOME', mode: 'adds', user: [], link: [], keep: [], seed: {} },
  guidance: { via: 'home-file', file: 'AGENTS.md', readAt: 'start' },
};

describe('the ACP driver', () => {
  it('has the host respawn an agent that read instructions at start the session then did not get, and repeats the handshake', async () => {
    // The scripted agent declares no HTTP MCP: the session is plain, so the instructions the
    // agent was started with (what a bound session would get) are taken back.
    const agent = scriptedHost({}, { descriptor: START_READ });
    const info = await agent.host.createSession(agent.request);
    expect(info).toMatchObject({ status: 'ready', connector: 'plain' });
    expect(agent.starts()).toHaveLength(2);
    expect(agent.received().filter((message) => message.method === 'initialize')).toHaveLength(2);
  });

  it('starts an agent that read at start what its bound session gets only once', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true' }, { descriptor: START_READ });
    const info = await agent.host.createSession(agent.request);
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    expect(agent.starts()).toHaveLength(1);
  });
});
