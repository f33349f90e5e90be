/**
 * Real agents installed from copies of their public ACP registry entries
 * (test/kit/fixtures/registry-entries) through a real `tuttid`: `POST /v1/agents/install
 * {entry}` runs npm against a loopback mirror of this machine's node_modules (no network),
 * the agent's id becomes a provider that runs the installed copy with its shipped
 * descriptor's extras (matched by id or `registryIds`), its session is bound and the agent
 * lists the connector's tools with its own token, a scripted-model turn calls a connector
 * tool, and closing a session ends the agent's process group. Each agent gets
 * the same offline setup as the shipped descriptors' tests (descriptor-agents.ts).
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanUp,
  FIXTURES,
  type NpmMirror,
  REPO_ROOT,
  startNpmMirror,
  tempDir,
  writeRelease,
} from '@tutti/test-kit';
import {
  type AgentDaemon,
  expectBoundAndListed,
  groupEnds,
  processExists,
  startAgentDaemon,
} from '@tutti/test-kit/agent-daemon';
import { callConnectorTool, runTurn, turnAgents } from '@tutti/test-kit/agent-turns';
import {
  claudeAgentAcp,
  codexAcp,
  type DescriptorAgent,
  gemini,
  qwen,
} from '@tutti/test-kit/descriptor-agents';
import { type ScriptedModel, startScriptedModel } from '@tutti/test-kit/scripted-model';
import { startToolServer, type ToolServer } from '@tutti/test-kit/tool-server';
import type { ControlAnswer } from '@tutti/test-kit/tuttid';

/** An entry file and how its session is started offline. */
interface EntryCase {
  readonly id: string;
  /** The npm package the entry pins. */
  readonly package: string;
  /** Its shipped descriptor's test setup (none: opencode, set up from turnAgents). */
  readonly agent?: DescriptorAgent;
  /**
   * How its turn events show the call of `first_echo`, when not labelled `connector`: Qwen
   * Code calls MCP tools through its own `tool_call` (only the status is checked), opencode
   * names its tools in no field of its own (its own tool name, no server).
   */
  readonly call?: Record<string, string>;
  /** More fields of the install request. */
  readonly install?: Record<string, unknown>;
}

const CASES: readonly EntryCase[] = [
  {
    id: 'claude-acp',
    package: '@agentclientprotocol/claude-agent-acp',
    agent: claudeAgentAcp,
  },
  { id: 'codex-acp', package: '@zed-industries/codex-acp', agent: codexAcp },
  { id: 'gemini', package: '@google/gemini-cli', agent: gemini },
  { id: 'qwen-code', package: '@qwen-code/qwen-code', agent: qwen, call: {} },
  {
    id: 'opencode',
    package: 'opencode-ai',
    call: { server: '', tool: 'connector_first_echo' },
    // Its bin is a stub until its postinstall links the platform package's binary.
    install: { allowInstallScripts: true },
  },
];

async function entryOf(id: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(FIXTURES, 'registry-entries', `${id}.json`), 'utf8'));
}

/**
 * opencode-ai@1.18.33 as the npm registry serves it, in `dir`: the installed copy holds the
 * binary its postinstall linked over `bin/opencode.exe`, the published one a stub that fails.
 */
async function publishedOpencode(dir: string): Promise<string> {
  const installed = join(REPO_ROOT, 'node_modules', 'opencode-ai');
  await mkdir(join(dir, 'bin'), { recursive: true });
  for (const file of ['package.json', 'LICENSE', 'postinstall.mjs']) {
    await copyFile(join(installed, file), join(dir, file));
  }
  const stub = 'echo "Error: opencode-ai\'s postinstall script was not run." >&2\nexit 1\n';
  await writeFile(join(dir, 'bin', 'opencode.exe'), stub, { mode: 0o755 });
  return dir;
}

/** The command line the process `pid` runs, its arguments joined by spaces. */
async function commandLineOf(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
}

describe('agents installed from their registry entries', () => {
  let mirror: NpmMirror;
  let agents: AgentDaemon;
  let model: ScriptedModel;
  let mine: ToolServer;
  const bodies = new Map<string, Record<string, unknown>>();
  const installs = new Map<string, Promise<ControlAnswer>>();

  beforeAll(async () => {
    const npm = await tempDir('tutti-npm-');
    mirror = await startNpmMirror({
      nodeModules: [join(REPO_ROOT, 'node_modules')],
      packages: [await publishedOpencode(join(npm, 'opencode-ai'))],
    });
    const userconfig = join(npm, 'npmrc');
    await writeFile(userconfig, '');
    model = await startScriptedModel();
    mine = await startToolServer([{ name: 'mine', answer: 'user-mine' }]);
    agents = await startAgentDaemon({
      env: {
        npm_config_registry: `${mirror.url}/`,
        npm_config_cache: join(npm, 'cache'),
        // The user's own ~/.npmrc stays out (it may name another registry).
        npm_config_userconfig: userconfig,
        npm_config_update_notifier: 'false',
      },
    });
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
    const opencode = (await turnAgents(agents, model)).opencode;
    bodies.set('opencode', { env: opencode.env });
    for (const { id, agent } of CASES) {
      if (agent) bodies.set(id, await agent.setUp(agents, model, mine));
    }
    // npm runs for all entries at once; each test waits for its own.
    for (const { id, install: more } of CASES) {
      const install = entryOf(id).then((entry) =>
        agents.daemon.control('POST', '/v1/agents/install', { entry, ...more }),
      );
      install.catch(() => undefined);
      installs.set(id, install);
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(installs.values());
    await agents?.dispose();
    await mirror?.close();
    await model?.close();
    await mine?.close();
    await cleanUp();
  });

  it.each(CASES)(
    '$id installs from its entry, binds a session that lists the connector tools, calls one in a turn, and ends it',
    async ({ id, package: name, call }) => {
      const entry = await entryOf(id);
      const installed = await installs.get(id)!;
      expect(installed.status, JSON.stringify(installed.body)).toBe(200);
      expect(installed.body.agent).toMatchObject({
        id,
        version: entry.version,
        source: 'registry',
        provider: { registered: true },
      });
      expect(mirror.requests).toContain(`/${name}`);
      const { agents: listed } = (await agents.daemon.control('GET', '/v1/agents')).body as {
        agents: { id: string; version: string; sizeBytes: number }[];
      };
      const row = listed.find((agent) => agent.id === id);
      expect(row).toMatchObject({ version: entry.version });
      expect(row!.sizeBytes).toBeGreaterThan(0);

      const registry = await agents.registry();
      const info = await agents.startSession({
        provider: id,
        workspaceId: `ws-${id}`,
        cwd: agents.agentEnv.cwd,
        permissions: 'allow-connector',
        ...bodies.get(id),
      });
      await expectBoundAndListed(agents, info, id, registry);
      // The installed copy runs, not the repository's.
      const runtime = join(agents.daemon.ready.home, 'agents', id, String(entry.version));
      expect(await commandLineOf(info.pid!)).toContain(runtime);

      model.script(callConnectorTool('first_echo', { text: `from ${id}` }));
      const { events } = await runTurn(agents, info.id, 'Echo with the first connector.');
      expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'tool_call',
          status: 'completed',
          ...(call ?? { server: 'connector', tool: 'first_echo' }),
        }),
      );
      const text = events
        .filter((event) => event.type === 'text')
        .map((event) => event.text)
        .join('');
      expect(text).toContain(`from ${id}`);

      const closed = await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`);
      expect(closed).toMatchObject({ status: 200, body: { closed: info.id } });
      expect(processExists(info.pid!)).toBe(false);
      await groupEnds(info.pid!);
    },
    240_000,
  );
});
