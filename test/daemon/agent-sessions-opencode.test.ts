/**
 * opencode (ACP) driven by a real `tuttid` through its control API: the session starts
 * bound, opencode lists the connector tools with its session token, a connector installed
 * later reaches it by native reload (`session/resume` with a new token), and closing the
 * session ends its process group and revokes its token. The agent runs behind a stdin
 * tap, so the test can read the tokens the daemon sent it.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp, NODE_BIN_DIR } from '@tutti/test-kit';
import {
  type AgentDaemon,
  bearerTokensIn,
  expectRefreshed,
  installSecondConnector,
  expectBoundAndListed,
  expectClosed,
  startAgentDaemon,
} from '@tutti/test-kit/agent-daemon';
import { writeStdinTap } from '@tutti/test-kit/agent-stdin-tap';

const OPENCODE = join(NODE_BIN_DIR, 'opencode');

describe('opencode sessions through tuttid', () => {
  let agents: AgentDaemon | undefined;

  afterEach(async () => {
    await agents?.dispose();
    agents = undefined;
    await cleanUp();
  });

  it('binds opencode to the connector server, refreshes it by native reload and revokes its token on close', async () => {
    agents = await startAgentDaemon();
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    const before = await agents.registry();
    expect(before.toolCount).toBeGreaterThan(0);

    const tap = await writeStdinTap(agents.agentEnv.root, 'opencode', OPENCODE);
    const info = await agents.startSession({
      provider: 'opencode',
      workspaceId: 'ws-opencode',
      cwd: agents.agentEnv.cwd,
      env: agents.env,
      launch: { command: tap.command, args: ['acp'] },
    });
    await expectBoundAndListed(agents, info, 'opencode', before);
    const [first] = await bearerTokensIn(tap.recorded);
    expect((await stat(tap.recorded)).mode & 0o777).toBe(0o600);
    expect(await agents.listStatus(first!)).toBe(200);

    const after = await installSecondConnector(agents);
    await expectRefreshed(agents, info, 'native-reload', after);
    const tokens = await bearerTokensIn(tap.recorded);
    expect(tokens).toHaveLength(2);
    const current = tokens[1]!;
    expect(await agents.listStatus(first!)).toBe(401);
    expect(await agents.listStatus(current)).toBe(200);

    await expectClosed(agents, info, current, tokens);
  }, 120_000);
});
