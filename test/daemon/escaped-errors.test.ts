/**
 * The last line of defence: an error that escapes an agent session's code (a provider bug,
 * an SDK object emitting an error nobody listens to) is logged with its stack and the
 * session it belongs to; that session is ended; the daemon and every other session stay up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, FIXTURES, WAIT } from '@tutti/test-kit';
import { type AgentDaemon, startAgentDaemon } from '@tutti/test-kit/agent-daemon';

const SCRIPTED_ACP = `${FIXTURES}acp/scripted-agent.mjs`;

/** A provider whose live session throws from a timer nobody awaits: a bug that escapes. */
const LEAKY_PLUGIN = `
export default {
  name: 'leaky-provider',
  version: '1.0.0',
  apply(host) {
    host.registerProvider({
      name: 'leaky',
      flags: { httpMcp: false, listChanged: false },
      project: () => ({}),
      bindingsIn: () => [],
      driver: (setup) => ({
        async open() {
          const agent = setup.spawn({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] });
          await agent.started;
          setTimeout(() => { throw new Error('leaky provider bug'); }, 300);
          return { providerSessionId: 'leaky-1' };
        },
      }),
    });
  },
};
`;

describe('errors that escape a session', () => {
  let agents: AgentDaemon | undefined;

  afterEach(async () => {
    await agents?.dispose();
    agents = undefined;
    await cleanUp();
  });

  it('ends only the session they escaped from and keep the daemon up', async () => {
    agents = await startAgentDaemon({ plugins: { 'leaky-provider.mjs': LEAKY_PLUGIN } });
    const healthy = await agents.startSession({
      provider: 'acp',
      permissions: 'agent',
      workspaceId: 'ws-healthy',
      cwd: agents.agentEnv.cwd,
      env: agents.env,
      launch: { command: process.execPath, args: [SCRIPTED_ACP], env: { ACP_SCRIPT_HTTP: 'true' } },
    });
    const leaky = await agents.startSession({
      provider: 'leaky',
      permissions: 'agent',
      workspaceId: 'ws-leaky',
      cwd: agents.agentEnv.cwd,
      env: agents.env,
    });
    await expect.poll(async () => (await agents!.session(leaky.id))?.status, WAIT).toBe('exited');
    expect(await agents.session(leaky.id)).toMatchObject({
      reason: 'an internal error ended it: leaky provider bug',
    });
    expect(await agents.session(healthy.id)).toMatchObject({ status: 'ready' });
    expect(agents.daemon.child.exitCode).toBeNull();
    const log = agents.daemon.stderr();
    expect(log).toContain('an error escaped the code of an agent session');
    expect(log).toContain(leaky.id);
    expect(log).toContain('leaky provider bug');
    expect(log).toMatch(/at Timeout/);
  });
});
