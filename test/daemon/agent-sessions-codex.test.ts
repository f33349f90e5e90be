/**
 * Codex (`app-server`) driven by a real `tuttid` through its control API: the session
 * starts bound, the thread's MCP client lists the connector tools with the session token
 * (read from the session home's `config.toml`), a connector installed later is handed to
 * the session as a reconnect before its next turn, and closing the session ends the agent's
 * process group, removes its home and revokes its token.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp } from '@tutti/test-kit';
import {
  type AgentDaemon,
  bearerTokensIn,
  AGENT_POLL,
  installSecondConnector,
  expectBoundAndListed,
  expectClosed,
  startAgentDaemon,
} from '@tutti/test-kit/agent-daemon';

describe('codex sessions through tuttid', () => {
  let agents: AgentDaemon | undefined;

  afterEach(async () => {
    await agents?.dispose();
    agents = undefined;
    await cleanUp();
  });

  it('binds codex to the connector server, marks it for a reconnect before the next turn and revokes its token on close', async () => {
    agents = await startAgentDaemon();
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    const before = await agents.registry();
    expect(before.toolCount).toBeGreaterThan(0);

    const info = await agents.startSession({
      provider: 'codex',
      workspaceId: 'ws-codex',
      cwd: agents.agentEnv.cwd,
      env: { ...agents.env, CODEX_HOME: join(agents.agentEnv.root, 'codex-home') },
    });
    // `thread/start` connects the thread's MCP servers: initialize, then tools/list.
    await expectBoundAndListed(agents, info, 'codex', before);

    const sessions = join(agents.daemon.ready.home, 'sessions');
    const homes = (await readdir(sessions)).filter((name) => name.startsWith('tutti-codex-'));
    expect(homes).toHaveLength(1);
    const home = join(sessions, homes[0]!);
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    expect((await stat(join(home, 'config.toml'))).mode & 0o777).toBe(0o600);
    const [token] = await bearerTokensIn(join(home, 'config.toml'));
    expect(await agents.listStatus(token!)).toBe(200);

    await installSecondConnector(agents);
    await expect
      .poll(async () => (await agents!.session(info.id))?.lastRefresh?.strategy, AGENT_POLL)
      .toBe('reconnect-before-turn');
    // Codex takes the new tool list when its next turn reconnects; until then it keeps the
    // catalog it listed, with the same token.
    expect((await agents.session(info.id))?.toolsListed).toMatchObject({
      version: before.version,
      toolCount: before.toolCount,
    });
    expect(await agents.listStatus(token!)).toBe(200);

    await expectClosed(agents, info, token!);
    await expect(stat(home)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 120_000);
});
