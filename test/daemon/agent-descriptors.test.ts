/**
 * ACP agents as data, through a real `tuttid`: the shipped opencode descriptor gives
 * opencode the connector's skill through its own skill scanner and the guidance through its
 * own instructions, beside the user's own MCP server, skill and AGENTS.md (all still seen
 * by the model); nothing is written into the workspace and the session's files are gone when
 * it ends. A descriptor written by the user for an agent that is not shipped works with no
 * code, also when added while the daemon runs; bad descriptors are refused with the field
 * and the fix, and the others load.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRelease, cleanUp, FIXTURES } from '@tutti/test-kit';
import { startToolServer, type ToolServer } from '@tutti/test-kit/tool-server';
import {
  AGENT_POLL,
  type AgentDaemon,
  expectBoundAndListed,
  startAgentDaemon,
} from '@tutti/test-kit/agent-daemon';
import { callConnectorTool, runTurn, turnAgents } from '@tutti/test-kit/agent-turns';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';

const SCRIPTED_ACP = `${FIXTURES}acp/scripted-agent.mjs`;
const SKILL =
  '---\nname: first-notes\ndescription: Take notes with the first connector (FIRSTSKILLMARK).\n---\nUse first_echo.\n';

/** Descriptors the user put into `<home>/agents` before the daemon started. */
const BAD_DESCRIPTORS = {
  'unknown-field.json': {
    id: 'unknown-field',
    name: 'X',
    command: process.execPath,
    colour: 'blue',
  },
  'no-command.json': { id: 'no-command', name: 'X' },
  'not-installed.json': { id: 'not-installed', name: 'X', command: 'no-such-agent-binary' },
  'outside.json': {
    id: 'outside',
    name: 'X',
    command: process.execPath,
    home: { env: 'X_HOME', mode: 'adds', user: ['~/.x'] },
    skills: { via: 'home', dir: '../../etc' },
  },
};

describe('agent descriptors through tuttid', () => {
  let agents: AgentDaemon;
  let model: ScriptedModel;
  let mine: ToolServer;

  beforeAll(async () => {
    model = await startScriptedModel();
    mine = await startToolServer([{ name: 'mine', answer: 'user-mine' }]);
    const plugins: Record<string, string> = {};
    agents = await startAgentDaemon({ plugins, agentsDir: BAD_DESCRIPTORS });
    await agents.install(
      await writeRelease({ key: 'first', serverArgs: [], skills: { 'first-notes': SKILL } }),
    );
  });

  afterAll(async () => {
    await agents?.dispose();
    await model?.close();
    await mine?.close();
    await cleanUp();
  });

  it("gives opencode the connector skill and guidance natively, beside the user's own setup", async () => {
    const bodies = await turnAgents(agents, model);
    // The user's own opencode setup: an MCP server, a skill, global instructions.
    const userDir = join(agents.agentEnv.env.XDG_CONFIG_HOME!, 'opencode');
    await mkdir(join(userDir, 'skills', 'user-skill'), { recursive: true });
    await writeFile(
      join(userDir, 'skills', 'user-skill', 'SKILL.md'),
      '---\nname: user-skill\ndescription: The user own skill (USERSKILLMARK).\n---\nbody\n',
    );
    await writeFile(
      join(userDir, 'AGENTS.md'),
      'USER-AGENTS-MARK: the user global instructions.\n',
    );
    const config = JSON.parse(await readFile(bodies.opencode.env.OPENCODE_CONFIG!, 'utf8'));
    config.mcp = {
      mine: { type: 'remote', url: mine.url, headers: { Authorization: `Bearer ${mine.token}` } },
    };
    await writeFile(bodies.opencode.env.OPENCODE_CONFIG!, JSON.stringify(config));
    const workspace = await readdir(agents.agentEnv.cwd);

    const before = await agents.registry();
    const info = await agents.startSession({
      workspaceId: 'ws-descriptor-opencode',
      cwd: agents.agentEnv.cwd,
      permissions: 'allow-connector',
      ...bodies.opencode,
      launch: undefined,
    });
    await expectBoundAndListed(agents, info, 'opencode', before);
    model.script(callConnectorTool('first_echo', { text: 'from the descriptor' }));
    const turn = await runTurn(agents, info.id, 'Echo with the first connector.');
    expect(turn.events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
    const request = model.requests.filter((r) => r.tools.length > 0).at(-1)!;
    const body = JSON.stringify(request.body);
    expect(request.tools).toEqual(expect.arrayContaining(['connector_first_echo', 'mine_mine']));
    for (const mark of ['FIRSTSKILLMARK', 'first-notes', 'USERSKILLMARK', 'USER-AGENTS-MARK']) {
      expect(body, mark).toContain(mark);
    }
    expect(body).toContain('Connectors available in this session:');
    expect(await readdir(agents.agentEnv.cwd)).toEqual(workspace);

    const sessions = join(agents.daemon.ready.home, 'sessions');
    const [folder] = (await readdir(sessions)).filter((name) => name.startsWith('tutti-opencode-'));
    expect(folder).toBeDefined();
    expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
    expect(await readdir(sessions)).not.toContain(folder);
    expect(await readFile(join(userDir, 'AGENTS.md'), 'utf8')).toContain('USER-AGENTS-MARK');
  }, 120_000);

  it('refuses bad descriptors with the field and the fix, and loads the others', async () => {
    const log = agents.daemon.stderr();
    for (const [file, problem] of [
      ['unknown-field.json', '(descriptor): unknown field \\"colour\\"'],
      // Not refused: a descriptor without a command waits for the installed agent it extends.
      ['no-command.json', 'names no command: it waits for an installed agent'],
      ['not-installed.json', 'command: \\"no-such-agent-binary\\" is not installed'],
      ['outside.json', 'skills.dir: skills.dir must be a relative path inside the session home'],
    ] as const) {
      expect(log, file).toContain(file);
      expect(log, file).toContain(problem);
    }
    const { providers } = (await agents.daemon.control('GET', '/v1/providers')).body as {
      providers: { name: string }[];
    };
    const names = providers.map((provider) => provider.name);
    expect(names).toEqual(expect.arrayContaining(['opencode', 'acp', 'codex', 'claude-sdk']));
    for (const bad of ['unknown-field', 'no-command', 'not-installed', 'outside']) {
      expect(names).not.toContain(bad);
    }
  });

  it("runs a user's descriptor of an agent that is not shipped, added while the daemon runs, with no code", async () => {
    const record = join(agents.agentEnv.root, 'custom-agent.jsonl');
    await writeFile(
      join(agents.daemon.ready.home, 'agents', 'scripted-custom.json'),
      JSON.stringify({
        id: 'scripted-custom',
        name: 'A scripted ACP agent',
        command: process.execPath,
        args: [SCRIPTED_ACP],
        env: { ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_RECORD: record },
      }),
    );
    await expect
      .poll(async () => {
        const { providers } = (await agents.daemon.control('GET', '/v1/providers')).body as {
          providers: { name: string }[];
        };
        return providers.map((provider) => provider.name);
      }, AGENT_POLL)
      .toContain('scripted-custom');
    // The daemon cannot check that this agent asks before its tools run: ask is refused.
    const refused = await agents.daemon.control('POST', '/v1/sessions', {
      provider: 'scripted-custom',
      workspaceId: 'ws-custom',
      cwd: agents.agentEnv.cwd,
      env: agents.env,
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error: { code: 'TUTTI_ERR_SESSION_PERMISSIONS_UNSUPPORTED' },
    });
    const message = (refused.body as { error: { message: string } }).error.message;
    expect(message).toContain('"scripted-custom"');
    expect(message).toContain('"ask"');
    const info = await agents.startSession({
      provider: 'scripted-custom',
      workspaceId: 'ws-custom',
      cwd: agents.agentEnv.cwd,
      env: agents.env,
      permissions: 'agent',
    });
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    const received = (await readFile(record, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(
      received.find((line) => line.message?.method === 'session/new')?.message.params.mcpServers,
    ).toMatchObject([{ type: 'http', name: 'connector', url: agents.daemon.ready.mcpUrl }]);
    expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
  });
});
