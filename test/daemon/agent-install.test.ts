/**
 * ACP agents installed from their registry entries through a real `tuttid`, with no code and
 * no descriptor: the recording agent as an npx entry installed by npm from a loopback
 * registry, and as a binary archive served on loopback with its SHA-256 pinned. Each is
 * listed, runs as a provider with its entry's args and env, lists the connector's tools with
 * its session token, calls one in a turn, and is reaped when the session closes; removing it
 * takes its files. Each refusal (an unpinned package, a missing or wrong SHA-256, a `..` or
 * a link in the archive) answers its code and leaves no files.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanUp,
  tempDir,
  writeRelease,
  binaryAgentArchive,
  binaryEntry,
  npxEntry,
  RECORDING_AGENT_DIR,
} from '@tutti/test-kit';
import { type AgentDaemon, processExists, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import { runTurn } from '@tutti/test-kit/agent-turns';
import { type FileServer, startFileServer } from '@tutti/test-kit/file-server';
import { type NpmMirror, startNpmMirror } from '@tutti/test-kit/npm-mirror';

// biome-ignore lint/suspicious/noExplicitAny: recorded lines are JSON checked by the assertions
type Recorded = any;

/** The lines the recording agent wrote to `log`. */
async function recorded(log: string): Promise<Recorded[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe('agents installed from registry entries, through tuttid', () => {
  let agents: AgentDaemon;
  let mirror: NpmMirror;
  let files: FileServer;
  let agentsDir: string;

  beforeAll(async () => {
    mirror = await startNpmMirror({ nodeModules: [], packages: [RECORDING_AGENT_DIR] });
    files = await startFileServer();
    const npmCache = await tempDir('tutti-npm-cache-');
    agents = await startAgentDaemon({
      agentHome: true,
      env: {
        npm_config_registry: `${mirror.url}/`,
        npm_config_cache: npmCache,
        npm_config_update_notifier: 'false',
      },
    });
    agentsDir = join(agents.daemon.ready.home, 'agents');
    await agents.install(await writeRelease({ key: 'first', serverArgs: [] }));
  });

  afterAll(async () => {
    await agents?.dispose();
    await mirror?.close();
    await files?.close();
    await cleanUp();
  });

  /** Starts a session of `provider` recording into `log`, with its entry's variable named. */
  async function startRecorded(provider: string, log: string) {
    const info = await agents.startSession({
      provider,
      workspaceId: `ws-${provider}`,
      cwd: agents.agentEnv.cwd,
      permissions: 'agent',
      env: {
        ...agents.env,
        RECORDING_AGENT_LOG: log,
        RECORDING_AGENT_ENV: 'RECORDING_AGENT_FLAG',
      },
    });
    expect(info).toMatchObject({ provider, status: 'ready', connector: 'bound' });
    return info;
  }

  /** Calls `first_echo` through the agent in a turn and checks its result came back. */
  async function expectToolCall(id: string, text: string) {
    const turn = await runTurn(agents, id, `call first_echo ${JSON.stringify({ text })}`);
    expect(turn.status).toBe(200);
    const said = turn.events
      .filter((event) => event.type === 'text')
      .map((event) => event.text)
      .join('');
    expect(said).toContain(text);
    expect(turn.events.at(-1)).toMatchObject({ type: 'end', stopReason: 'end_turn' });
  }

  /** Closes the session and checks its agent process is gone. */
  async function closeAndReaped(id: string, pid: number) {
    expect(processExists(pid)).toBe(true);
    expect((await agents.daemon.control('DELETE', `/v1/sessions/${id}`)).status).toBe(200);
    expect(processExists(pid)).toBe(false);
  }

  it('installs an npx entry with npm, runs it with its args and env, and removes it', async () => {
    const entry = npxEntry('recording-agent', {
      args: ['--acp'],
      env: { RECORDING_AGENT_FLAG: 'from-entry' },
    });
    const installed = await agents.daemon.control('POST', '/v1/agents/install', { entry });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    expect(mirror.requests).toContain('/tutti-recording-agent');

    const { agents: listed } = (await agents.daemon.control('GET', '/v1/agents')).body;
    const row = listed.find((agent: { id: string }) => agent.id === 'recording-agent');
    expect(row).toMatchObject({
      id: 'recording-agent',
      version: '1.0.0',
      source: 'registry',
      provider: { registered: true },
    });
    expect(row.sizeBytes).toBeGreaterThan(0);
    expect(existsSync(join(agentsDir, 'recording-agent', 'installed.json'))).toBe(true);

    // No descriptor makes this agent ask before its tools run: it is refused the modes it
    // cannot honour (the default is "ask"), before anything starts.
    const asking = await agents.daemon.control('POST', '/v1/sessions', {
      provider: 'recording-agent',
      workspaceId: 'ws-asking',
      cwd: agents.agentEnv.cwd,
    });
    expect(asking).toMatchObject({
      status: 422,
      body: { error: { code: 'TUTTI_ERR_SESSION_PERMISSIONS_UNSUPPORTED' } },
    });

    const log = join(agents.agentEnv.root, 'npx-agent.jsonl');
    const info = await startRecorded('recording-agent', log);
    const session = (await recorded(log)).find((line) => line.kind === 'session/new');
    expect(session).toMatchObject({
      argv: ['--acp'],
      env: { RECORDING_AGENT_FLAG: 'from-entry' },
      mcpServers: [{ name: 'connector', url: agents.daemon.ready.mcpUrl }],
    });
    expect(session.mcpServers[0].headerNames.map((name: string) => name.toLowerCase())).toEqual([
      'authorization',
    ]);
    // It listed the connector's tools with the token it was given.
    expect(session.listError).toBeUndefined();
    expect(session.tools).toContain('first_echo');
    expect(await readFile(log, 'utf8')).not.toContain('Bearer');
    await expectToolCall(info.id, 'from the npx agent');
    const { sessions } = (await agents.daemon.control('GET', '/v1/sessions')).body;
    const shown = sessions.find((each: { id: string }) => each.id === info.id);
    const pid = shown.pid;
    expect(pid).toBe(session.pid);
    // The host is shown how the agent says a person signs in (its initialize authMethods).
    expect(shown.authMethods).toEqual([
      expect.objectContaining({ id: 'recording-login', name: 'Recording login' }),
    ]);
    await closeAndReaped(info.id, pid);

    const removed = await agents.daemon.control('DELETE', '/v1/agents/recording-agent');
    expect(removed).toMatchObject({ status: 200, body: { removed: true } });
    expect(existsSync(join(agentsDir, 'recording-agent'))).toBe(false);
    const after = (await agents.daemon.control('GET', '/v1/agents')).body.agents;
    expect(after.map((agent: { id: string }) => agent.id)).not.toContain('recording-agent');
    const refused = await agents.daemon.control('POST', '/v1/sessions', {
      provider: 'recording-agent',
      workspaceId: 'ws-removed',
      cwd: agents.agentEnv.cwd,
      permissions: 'agent',
    });
    expect(refused).toMatchObject({
      status: 404,
      body: { error: { code: 'TUTTI_ERR_SESSION_UNKNOWN_PROVIDER' } },
    });
  }, 120_000);

  it('installs a binary entry only with its pinned SHA-256, runs it and reaps it at session close', async () => {
    const archive = await binaryAgentArchive();
    files.set('/recording-agent-linux.tar.gz', archive.tgz);
    const entry = binaryEntry(
      'recording-binary',
      `${files.url}/recording-agent-linux.tar.gz`,
      archive.sha256,
      { args: ['--from-binary'], env: { RECORDING_AGENT_FLAG: 'from-binary-entry' } },
    );
    const installed = await agents.daemon.control('POST', '/v1/agents/install', { entry });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    expect(files.requests).toContain('/recording-agent-linux.tar.gz');
    expect(
      existsSync(join(agentsDir, 'recording-binary', '1.0.0', 'recording-agent', 'agent')),
    ).toBe(true);
    const { agents: listed } = (await agents.daemon.control('GET', '/v1/agents')).body;
    expect(listed.find((agent: { id: string }) => agent.id === 'recording-binary')).toMatchObject({
      version: '1.0.0',
      source: 'registry',
      provider: { registered: true },
    });

    const log = join(agents.agentEnv.root, 'binary-agent.jsonl');
    const info = await startRecorded('recording-binary', log);
    const session = (await recorded(log)).find((line) => line.kind === 'session/new');
    expect(session).toMatchObject({
      argv: ['--from-binary'],
      env: { RECORDING_AGENT_FLAG: 'from-binary-entry' },
    });
    expect(session.tools).toContain('first_echo');
    await expectToolCall(info.id, 'from the binary agent');
    await closeAndReaped(info.id, session.pid);

    expect((await agents.daemon.control('DELETE', '/v1/agents/recording-binary')).status).toBe(200);
    expect(existsSync(join(agentsDir, 'recording-binary'))).toBe(false);
  }, 60_000);

  it('refuses an unpinned package, a missing or wrong SHA-256, a ".." and a link in the archive, leaving no files', async () => {
    const good = await binaryAgentArchive();
    const traversal = await binaryAgentArchive([{ path: '../evil', content: 'x', mode: 0o644 }]);
    const linked = await binaryAgentArchive([
      { path: 'recording-agent/passwd', type: 'symlink', linkpath: '/etc/passwd' },
    ]);
    files.set('/good.tar.gz', good.tgz);
    files.set('/traversal.tar.gz', traversal.tgz);
    files.set('/linked.tar.gz', linked.tgz);
    const cases = [
      {
        entry: npxEntry('refused-unpinned', { package: 'tutti-recording-agent' }),
        code: 'TUTTI_ERR_AGENT_UNPINNED',
      },
      {
        entry: binaryEntry('refused-unsummed', `${files.url}/good.tar.gz`, undefined),
        code: 'TUTTI_ERR_AGENT_CHECKSUM_MISSING',
      },
      {
        entry: binaryEntry('refused-mismatch', `${files.url}/good.tar.gz`, 'ab'.repeat(32)),
        code: 'TUTTI_ERR_AGENT_CHECKSUM_MISMATCH',
      },
      {
        entry: binaryEntry('refused-traversal', `${files.url}/traversal.tar.gz`, traversal.sha256),
        code: 'TUTTI_ERR_AGENT_ARCHIVE_UNSAFE',
      },
      {
        entry: binaryEntry('refused-link', `${files.url}/linked.tar.gz`, linked.sha256),
        code: 'TUTTI_ERR_AGENT_ARCHIVE_UNSAFE',
      },
    ];
    const before = (await readdir(agentsDir).catch(() => [])).sort();
    for (const { entry, code } of cases) {
      const id = entry.id as string;
      const answer = await agents.daemon.control('POST', '/v1/agents/install', { entry });
      expect(answer.status, id).toBe(422);
      expect(answer.body, id).toMatchObject({ error: { code } });
      expect(existsSync(join(agentsDir, id)), id).toBe(false);
      expect((await readdir(agentsDir).catch(() => [])).sort(), id).toEqual(before);
    }
    const { agents: listed } = (await agents.daemon.control('GET', '/v1/agents')).body;
    const ids = listed.map((agent: { id: string }) => agent.id);
    for (const { entry } of cases) expect(ids).not.toContain(entry.id);
    // Nothing was written beside the agents' folder either.
    const home = agents.daemon.ready.home;
    expect(existsSync(join(home, 'evil'))).toBe(false);
    expect(existsSync(join(agentsDir, 'evil'))).toBe(false);
  }, 60_000);
});
