/**
 * End-to-end proofs of the Claude SDK engine on the real Claude Code binary bundled with
 * the Agent SDK. The prompt stream never yields, so no model is called.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import {
  type AgentProcess,
  createSkillPlugin,
  type PreparedRuntime,
  sessionFiles,
} from '@tutti/core';
import { isProcessGroupAlive as groupHasLiveMember, spawnAgent } from '@tutti/core/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WAIT } from '@tutti/test-kit';
import { type AgentTestEnv, createAgentTestEnv } from '@tutti/test-kit/agent-env';
import { startToolServer, type ToolServer } from '@tutti/test-kit/tool-server';
import { ClaudeSdkSession } from './claude-sdk-session.js';
import { bindingsToMcpServers, buildQueryOptions } from './query-options.js';

/**
 * Starts a session outside a session host, its files under `baseDir`: the options projected
 * as the provider's tap does, the skills plugin written into a folder of its own, Claude
 * Code spawned through core's agent spawn and stopped as a whole group on dispose.
 */
async function startStandaloneClaude(input: {
  prepared: PreparedRuntime;
  userOptions?: Options;
  baseDir: string;
}): Promise<{ session: ClaudeSdkSession; dir: string; dispose(): Promise<void> }> {
  const files = sessionFiles(join(input.baseDir, `claude-session-${randomUUID()}`));
  const skillsDir = join(files.dir, 'claude-skills');
  const agents: AgentProcess[] = [];
  const dispose = async () => {
    await Promise.allSettled(agents.map((agent) => agent.terminate()));
    await files.remove();
  };
  try {
    if (input.prepared.skillRoots.length > 0) {
      await files.ensure();
      await createSkillPlugin(input.prepared.skillRoots, { dir: skillsDir });
    }
    const options = buildQueryOptions(input.prepared, {
      ...(input.userOptions ? { userOptions: input.userOptions } : {}),
      sessionId: randomUUID(),
      ...(input.prepared.skillRoots.length > 0 ? { skillPluginDir: skillsDir } : {}),
    });
    const session = await ClaudeSdkSession.start({
      options,
      spawn: (spec) => {
        const agent = spawnAgent(
          {
            command: spec.command,
            args: spec.args,
            cwd: spec.cwd ?? input.prepared.cwd,
            env: spec.env,
            ...(spec.signal ? { signal: spec.signal } : {}),
          },
          { provider: 'claude-sdk' },
        );
        agents.push(agent);
        return agent;
      },
    });
    return {
      session,
      dir: files.dir,
      async dispose() {
        await session.close();
        await dispose();
      },
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

describe('Claude SDK session', () => {
  let env: AgentTestEnv;
  let upstream: ToolServer;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeEach(async () => {
    env = await createAgentTestEnv();
    upstream = await startToolServer([{ name: 'echo', answer: 'upstream-echo' }]);
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await upstream.close();
    await env.dispose();
  });

  function prepared(overrides: Partial<PreparedRuntime> = {}): PreparedRuntime {
    return {
      cwd: env.cwd,
      env: { ...env.env, IS_SANDBOX: '1' },
      mcpServers: [
        {
          name: 'connector',
          type: 'http',
          url: upstream.url,
          headers: { Authorization: `Bearer ${upstream.token}` },
        },
      ],
      skillRoots: [],
      ...overrides,
    };
  }

  const disposers = new Map<ClaudeSdkSession, () => Promise<void>>();
  const dirs = new Map<ClaudeSdkSession, string>();

  async function start(
    overrides: Partial<PreparedRuntime> = {},
    userOptions: Parameters<typeof startStandaloneClaude>[0]['userOptions'] = {},
  ): Promise<ClaudeSdkSession> {
    const { session, dir, dispose } = await startStandaloneClaude({
      prepared: prepared(overrides),
      userOptions: { settingSources: [], strictMcpConfig: true, ...userOptions },
      baseDir: env.root,
    });
    cleanups.push(dispose);
    disposers.set(session, dispose);
    dirs.set(session, dir);
    return session;
  }

  const toolNames = (status: { tools?: { name: string }[] } | undefined) =>
    (status?.tools ?? []).map((tool) => tool.name).sort();

  it('shows connector connected with the upstream tools, reached with the bearer token', async () => {
    const session = await start();
    const status = await session.waitForMcpServer('connector');
    expect(status.status).toBe('connected');
    expect(toolNames(status)).toEqual(['echo']);
    expect(upstream.requests.length).toBeGreaterThan(0);
    expect(upstream.requests.every((request) => request.authorized)).toBe(true);
  });

  it('keeps the caller own MCP servers next to connector', async () => {
    const mine = await startToolServer([{ name: 'mine', answer: 'user-mine' }]);
    cleanups.push(() => mine.close());
    const session = await start(
      {},
      {
        mcpServers: {
          mine: { type: 'http', url: mine.url, headers: { Authorization: `Bearer ${mine.token}` } },
        },
      },
    );
    await session.waitForMcpServer('connector');
    const status = await session.waitForMcpServer('mine');
    expect(status.status).toBe('connected');
    expect(toolNames(status)).toEqual(['mine']);
    const connector = (await session.mcpServerStatus()).find((s) => s.name === 'connector');
    expect(toolNames(connector)).toEqual(['echo']);
  });

  it('shows a tool added upstream after list_changed, with no reload', async () => {
    const session = await start();
    await session.waitForMcpServer('connector');
    upstream.addTool({ name: 'added', answer: 'upstream-added' });
    await expect
      .poll(async () =>
        toolNames((await session.mcpServerStatus()).find((s) => s.name === 'connector')),
      )
      .toEqual(['added', 'echo']);
  });

  it('shows a tool added upstream after reconnectMcpServer', async () => {
    const session = await start();
    await session.waitForMcpServer('connector');
    // Added without a notification: only a reconnect can reveal it.
    upstream.addTool({ name: 'quiet', answer: 'upstream-quiet' }, { notify: false });
    const before = (await session.mcpServerStatus()).find((s) => s.name === 'connector');
    expect(toolNames(before)).toEqual(['echo']);
    await session.reconnectMcpServer('connector');
    const status = await session.waitForMcpServer('connector');
    expect(toolNames(status)).toEqual(['echo', 'quiet']);
  });

  it('moves connector to new bindings with rebind', async () => {
    const session = await start();
    await session.waitForMcpServer('connector');
    const next = await startToolServer([{ name: 'other', answer: 'next' }]);
    cleanups.push(() => next.close());
    await session.setMcpServers(
      bindingsToMcpServers([
        {
          name: 'connector',
          type: 'http',
          url: next.url,
          headers: { Authorization: `Bearer ${next.token}` },
        },
      ]),
    );
    await expect
      .poll(async () =>
        toolNames((await session.mcpServerStatus()).find((s) => s.name === 'connector')),
      )
      .toEqual(['other']);
  });

  it('offers the prepared skill roots as plugin skills from the session folder, removed with it', async () => {
    const root = join(env.root, 'connector-skills');
    await mkdir(join(root, 'demo-connector-skill'), { recursive: true });
    await writeFile(
      join(root, 'demo-connector-skill', 'SKILL.md'),
      '---\nname: demo-connector-skill\ndescription: Use the demo connector.\n---\nCall its tools.\n',
    );
    const session = await start({ skillRoots: [root] });
    const init = await session.query.initializationResult();
    expect(init.commands.map((command) => command.name)).toContain(
      'tutti-connector:demo-connector-skill',
    );
    const pluginDir = join(dirs.get(session)!, 'claude-skills');
    expect(await readdir(join(pluginDir, 'skills'))).toEqual(['demo-connector-skill']);

    await disposers.get(session)!();

    await expect(stat(pluginDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('lets Claude Code end by itself when the session closes', async () => {
    const session = await start();
    await session.waitForMcpServer('connector');
    const pid = session.pid!;
    expect(groupHasLiveMember(pid)).toBe(true);

    await session.close();

    // Claude Code exits once its query closes; the host stops what is left of its group.
    await expect.poll(() => groupHasLiveMember(pid), WAIT).toBe(false);
  });
});
