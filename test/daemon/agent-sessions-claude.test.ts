/**
 * Claude Code (Claude Agent SDK) driven by a real `tuttid` through its control API. No
 * prompt is sent, so no model is called. The session starts bound, Claude Code lists the
 * connector tools with its session token, a connector installed later reaches it through
 * the server's `notifications/tools/list_changed`, and closing the session ends its process
 * group and revokes its token. Claude Code runs behind a stdin tap (see agent-stdin-tap).
 */
import { stat } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp } from '@tutti/test-kit';
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
import { CLAUDE_CODE_BIN as CLAUDE } from '@tutti/test-kit/paths';

describe('Claude SDK sessions through tuttid', () => {
  let agents: AgentDaemon | undefined;

  afterEach(async () => {
    await agents?.dispose();
    agents = undefined;
    await cleanUp();
  });

  it('binds Claude Code to the connector server, refreshes it by list_changed and revokes its token on close', async () => {
    agents = await startAgentDaemon();
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    const before = await agents.registry();

    const tap = await writeStdinTap(agents.agentEnv.root, 'claude', CLAUDE);
    const info = await agents.startSession({
      provider: 'claude-sdk',
      workspaceId: 'ws-claude',
      cwd: agents.agentEnv.cwd,
      // Claude Code refuses some permission modes as root unless it is told it is sandboxed.
      env: { ...agents.env, IS_SANDBOX: '1' },
      launch: { command: tap.command },
    });
    await expectBoundAndListed(agents, info, 'claude-sdk', before);
    const [token] = await bearerTokensIn(tap.recorded);
    expect((await stat(tap.recorded)).mode & 0o777).toBe(0o600);
    expect(await agents.listStatus(token!)).toBe(200);

    const after = await installSecondConnector(agents);
    await expectRefreshed(agents, info, 'list-changed', after);
    // list_changed needs no new binding: the first token is still the session's token.
    expect(await bearerTokensIn(tap.recorded)).toEqual([token]);

    await expectClosed(agents, info, token!);
  }, 120_000);
});
