/**
 * End-to-end proofs of the app-server engine on the real `codex` binary, once per
 * descriptor (Codex, and Tutti Agent pointed at a `codex` stand-in). No model is called:
 * tools are called with `mcpServer/tool/call`, and the one turn-level test talks to a fake
 * Responses endpoint on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type PreparedRuntime, sessionFiles } from '@tutti/core';
import { isProcessGroupAlive as groupHasLiveMember, spawnAgent } from '@tutti/core/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentTestEnv, createAgentTestEnv } from '@tutti/test-kit/agent-env';
import {
  type FakeResponsesServer,
  startFakeResponsesServer,
} from '@tutti/test-kit/fake-responses-server';
import { CODEX_BIN, NODE_BIN_DIR, TUTTI_AGENT_BIN, WAIT } from '@tutti/test-kit';
import { startToolServer, type ToolServer } from '@tutti/test-kit/tool-server';
import { AppServerEngine } from './app-server-engine.js';
import { parseConfig } from './codex-config.js';
import {
  type AppServerDescriptor,
  createCodexDescriptor,
  createTuttiAgentDescriptor,
} from './descriptor.js';
import { type EngineLogger, sessionConfig, writeSessionHome } from './session-home.js';

const run = promisify(execFile);

/**
 * Starts an engine outside a session host: its session home written under `baseDir`, the
 * agent spawned through core's agent spawn; `dispose` closes it and removes the home.
 */
async function startStandaloneEngine(options: {
  descriptor: AppServerDescriptor;
  prepared: PreparedRuntime;
  baseDir: string;
  logger?: EngineLogger;
}): Promise<{ engine: AppServerEngine; dispose(): Promise<void> }> {
  const { descriptor, prepared } = options;
  const files = sessionFiles(join(options.baseDir, `session-${descriptor.id}-${Date.now()}`));
  const config = await sessionConfig(descriptor, prepared.mcpServers, options.logger);
  const home = await writeSessionHome(files, descriptor, config);
  try {
    const engine = await AppServerEngine.start({
      descriptor,
      prepared,
      home,
      spawn: () =>
        spawnAgent(
          {
            command: descriptor.command,
            args: descriptor.args,
            cwd: prepared.cwd,
            env: { ...prepared.env, [descriptor.homeEnvVar]: home.dir },
          },
          { provider: descriptor.id },
        ),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return {
      engine,
      async dispose() {
        await engine.close();
        await files.remove();
      },
    };
  } catch (error) {
    await files.remove();
    throw error;
  }
}

const DESCRIPTORS: [string, (userHome: string) => AppServerDescriptor][] = [
  ['codex', (userHome) => createCodexDescriptor({ command: CODEX_BIN, userHome })],
  ['tutti-agent', (userHome) => createTuttiAgentDescriptor({ command: TUTTI_AGENT_BIN, userHome })],
];

describe.each(DESCRIPTORS)('app-server engine (%s)', (_name, makeDescriptor) => {
  let env: AgentTestEnv;
  let upstream: ToolServer;
  let userHome: string;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeEach(async () => {
    env = await createAgentTestEnv();
    upstream = await startToolServer([{ name: 'echo', answer: 'upstream-echo' }]);
    userHome = join(env.root, 'user-agent-home');
    await mkdir(userHome, { recursive: true });
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await upstream.close();
    await env.dispose();
  });

  function prepared(): PreparedRuntime {
    return {
      cwd: env.cwd,
      env: { ...env.env, PATH: `${NODE_BIN_DIR}:${env.env.PATH}` },
      mcpServers: [
        {
          name: 'connector',
          type: 'http',
          url: upstream.url,
          headers: { Authorization: `Bearer ${upstream.token}` },
        },
      ],
      skillRoots: [],
    };
  }

  async function startEngine(
    overrides: Partial<PreparedRuntime> = {},
    logger?: { warn: (fields: Record<string, unknown>, message: string) => void },
  ): Promise<AppServerEngine> {
    const { engine, dispose } = await startStandaloneEngine({
      descriptor: makeDescriptor(userHome),
      prepared: { ...prepared(), ...overrides },
      baseDir: env.root,
      ...(logger ? { logger } : {}),
    });
    cleanups.push(dispose);
    return engine;
  }

  it('writes a session home that the agent accepts with --strict-config', async () => {
    const engine = await startEngine();
    const descriptor = makeDescriptor(userHome);
    const { stdout } = await run(
      descriptor.command,
      [...descriptor.args, '--strict-config', '--print-startup-config'],
      { env: { ...prepared().env, [descriptor.homeEnvVar]: engine.home.dir } },
    );
    expect(stdout.length).toBeGreaterThan(0);
  });

  it('shows the connector server with its upstream tools in mcpServerStatus', async () => {
    const engine = await startEngine();
    const servers = await engine.mcpServerStatus();
    const connector = servers.find((server) => server.name === 'connector');
    expect(connector?.toolsError ?? null).toBeNull();
    expect(Object.keys(connector?.tools ?? {})).toEqual(['echo']);
    expect(upstream.requests.every((request) => request.authorized)).toBe(true);
  });

  it('returns the upstream answer for mcpServer/tool/call on a thread', async () => {
    const engine = await startEngine();
    const threadId = await engine.startThread();
    const result = await engine.callTool(threadId, 'connector', 'echo', { text: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'upstream-echo:hi' }]);
  });

  it('shows a tool added upstream on a loaded thread after reload and reconnect', async () => {
    const engine = await startEngine();
    const threadId = await engine.startThread();
    const threadTools = async () => {
      const [status] = await engine.mcpServerStatus({ threadId, serverName: 'connector' });
      return Object.keys(status?.tools ?? {}).sort();
    };
    expect(await threadTools()).toEqual(['echo']);

    upstream.addTool({ name: 'added', answer: 'upstream-added' });
    await engine.reload();
    const ids = await engine.reconnect();

    expect(ids.get(threadId)).toBe(engine.threadId(threadId));
    expect(await threadTools()).toEqual(['added', 'echo']);
    const result = await engine.callTool(threadId, 'connector', 'added', { text: 'x' });
    expect(result.content).toEqual([{ type: 'text', text: 'upstream-added:x' }]);
  });

  it('keeps config.toml 0600 in a 0700 home and stops the whole process group on close', async () => {
    const engine = await startEngine();
    const { dir, configPath } = engine.home;
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(configPath)).mode & 0o777).toBe(0o600);
    const pid = engine.pid;
    expect(groupHasLiveMember(pid)).toBe(true);

    await engine.close();

    // The folder is the session host's to remove (provider test); the process is gone now.
    expect(groupHasLiveMember(pid)).toBe(false);
  });

  it('hands the prepared skill roots to the agent skill scanner', async () => {
    const root = join(env.root, 'connector-skills');
    await mkdir(join(root, 'demo-connector-skill'), { recursive: true });
    await writeFile(
      join(root, 'demo-connector-skill', 'SKILL.md'),
      '---\nname: demo-connector-skill\ndescription: Use the demo connector.\n---\nCall its tools.\n',
    );
    const engine = await startEngine({ skillRoots: [root] });
    const result = await engine.request<{ data: { skills: { name: string }[] }[] }>('skills/list', {
      cwds: [env.cwd],
      forceReload: true,
    });
    const names = result.data.flatMap((entry) => entry.skills.map((skill) => skill.name));
    expect(names).toContain('demo-connector-skill');
  });

  describe('with a user config', () => {
    let userUpstream: ToolServer;
    let model: FakeResponsesServer;

    beforeEach(async () => {
      userUpstream = await startToolServer([{ name: 'mine', answer: 'user-mine' }]);
      model = await startFakeResponsesServer();
      await writeFile(
        join(userHome, 'config.toml'),
        [
          'model = "fake-model"',
          'model_provider = "fake"',
          'approval_policy = "never"',
          '',
          '[model_providers.fake]',
          'name = "fake"',
          `base_url = "${model.baseUrl}"`,
          'wire_api = "responses"',
          '',
          '[mcp_servers.mine]',
          `url = "${userUpstream.url}"`,
          `http_headers = { Authorization = "Bearer ${userUpstream.token}" }`,
          '',
          '[mcp_servers.connector]',
          'url = "http://127.0.0.1:9/user-own-connector"',
          '',
          '[profiles.review]',
          'model = "other"',
          '',
        ].join('\n'),
      );
    });

    afterEach(async () => {
      await userUpstream.close();
      await model.close();
    });

    it('keeps the user config in meaning and lets the binding replace a user "connector"', async () => {
      const warnings: string[] = [];
      const engine = await startEngine({}, { warn: (_fields, message) => warnings.push(message) });

      const user = parseConfig(await readFile(join(userHome, 'config.toml'), 'utf8'));
      const session = parseConfig(await readFile(engine.home.configPath, 'utf8'));
      const strip = (config: Record<string, unknown>) => {
        const { connector: _ours, ...servers } = config.mcp_servers as Record<string, unknown>;
        return { ...config, mcp_servers: servers };
      };
      expect(strip(session)).toEqual(strip(user));
      expect((session.mcp_servers as Record<string, unknown>).connector).toEqual({
        url: upstream.url,
        http_headers: { Authorization: `Bearer ${upstream.token}` },
      });
      expect(warnings).toHaveLength(1);

      const servers = await engine.mcpServerStatus();
      const tools = Object.fromEntries(servers.map((s) => [s.name, Object.keys(s.tools).sort()]));
      expect(tools).toEqual({ connector: ['echo'], mine: ['mine'] });
      expect(upstream.requests.every((request) => request.authorized)).toBe(true);
      expect(userUpstream.requests.every((request) => request.authorized)).toBe(true);
    });

    it('offers a tool added upstream to the next turn of a persisted thread', async () => {
      const engine = await startEngine();
      const threadId = await engine.startThread();
      const turnsDone: string[] = [];
      engine.onNotification((n) => {
        if (n.method === 'turn/completed') turnsDone.push(JSON.stringify(n.params));
      });
      const turn = async (text: string) => {
        const before = turnsDone.length;
        await engine.startTurn(threadId, text);
        await expect.poll(() => turnsDone.length, WAIT).toBeGreaterThan(before);
      };

      await turn('first');
      upstream.addTool({ name: 'added', answer: 'upstream-added' });
      await engine.reload();
      await turn('second');

      const [first, second] = model.toolNamesPerRequest;
      expect(first?.filter((name) => name.startsWith('mcp__connector'))).toEqual([
        'mcp__connector/echo',
      ]);
      expect(second?.filter((name) => name.startsWith('mcp__connector')).sort()).toEqual([
        'mcp__connector/added',
        'mcp__connector/echo',
      ]);
    });
  });
});
