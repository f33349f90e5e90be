/**
 * A signed, data-only extension of the recording agent through a real `tuttid`: its package
 * brings the agent's registry entry (a binary archive served on loopback) and a descriptor
 * with a session home that copies the user's `config.yaml` and merges the connector skill
 * root into its `skills.external_dirs`. Accepted when everything matches: the agent records
 * the copied config with the root merged, the skill and the guidance, and the user's own
 * file is unchanged. Refused, with its code, leaving the installed extension as it was, for
 * one changed byte of `versions.json`, another key, another version and each kind of code
 * file (`.js`, a `#!` first line, an executable bit).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanUp,
  homeSnapshot,
  writeRelease,
  type Archive,
  binaryAgentArchive,
  binaryEntry,
  type ExtensionSpec,
  publisherKeys,
  signedExtension,
} from '@tutti/test-kit';
import { type AgentDaemon, processExists, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import { type FileServer, startFileServer } from '@tutti/test-kit/file-server';

const SKILL =
  '---\nname: first-notes\ndescription: Take notes with the first connector.\n---\nUse first_echo.\n';

/** The user's own config of the agent: one skill folder of theirs, and a comment. */
const USER_CONFIG =
  '# the user config\nmodel: user-model\nskills:\n  external_dirs:\n    - /opt/user-skills\n';

/** The extension's descriptor: no command (its entry brings one), a session home. */
const DESCRIPTOR = {
  id: 'recording-agent',
  name: 'Recording agent (extended)',
  home: {
    env: 'RECORDING_HOME',
    mode: 'adds',
    user: ['$RECORDING_USER_DIR'],
    copy: ['config.yaml'],
    // A static file of the package itself, written into the home.
    seed: { 'profile.yaml': { file: 'profiles/reviewer.yaml' } },
  },
  skills: {
    via: 'home',
    dir: 'skills',
    yamlList: { file: 'config.yaml', key: 'skills.external_dirs' },
    // Like an agent that reads its config and skills only when its process starts.
    readAt: 'start',
  },
  guidance: { via: 'home-file', file: 'AGENTS.md' },
};

describe('signed agent extensions, through tuttid', () => {
  let agents: AgentDaemon;
  let files: FileServer;
  let archive: Archive;
  let agentsDir: string;
  const keys = publisherKeys();

  /** The extension of the recording agent at version 1.0.0, with `faults`. */
  const extension = (faults: Partial<ExtensionSpec> = {}) =>
    signedExtension(files, {
      agent: 'recording-agent',
      version: '1.0.0',
      descriptor: DESCRIPTOR,
      files: {
        'README.txt': 'The recording agent with a session home.\n',
        'profiles/reviewer.yaml': 'profile: reviewer # from the package\n',
      },
      entry: binaryEntry('recording-agent', `${files.url}/recording-agent.tar.gz`, archive.sha256, {
        args: ['--extended'],
      }),
      keys,
      ...faults,
    });

  beforeAll(async () => {
    archive = await binaryAgentArchive();
    files = await startFileServer({ '/recording-agent.tar.gz': archive.tgz });
    agents = await startAgentDaemon({ agentHome: true });
    agentsDir = join(agents.daemon.ready.home, 'agents');
    await agents.install(
      await writeRelease({ key: 'first', serverArgs: [], skills: { 'first-notes': SKILL } }),
    );
  });

  afterAll(async () => {
    await agents?.dispose();
    await files?.close();
    await cleanUp();
  });

  it("accepts a matching extension, whose session home holds the user's config copied with the connector skill root merged", async () => {
    const published = await extension();
    const installed = await agents.daemon.control('POST', '/v1/agents/install', {
      extension: published.source,
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    const { agents: listed } = (await agents.daemon.control('GET', '/v1/agents')).body;
    expect(listed).toMatchObject([
      {
        id: 'recording-agent',
        source: 'extension',
        extension: {
          version: '1.0.0',
          agent: 'recording-agent',
          files: ['README.txt', 'profiles/reviewer.yaml'],
        },
        provider: { registered: true },
      },
    ]);
    const dir = join(agentsDir, 'recording-agent');
    expect(JSON.parse(await readFile(join(dir, 'source.json'), 'utf8'))).toEqual(published.source);
    expect(existsSync(join(dir, 'extension', '1.0.0', 'README.txt'))).toBe(true);

    const userDir = join(agents.agentEnv.root, 'recording-user');
    await mkdir(userDir, { recursive: true });
    await writeFile(join(userDir, 'config.yaml'), USER_CONFIG);
    const log = join(agents.agentEnv.root, 'extended-agent.jsonl');
    const info = await agents.startSession({
      provider: 'recording-agent',
      workspaceId: 'ws-extended',
      cwd: agents.agentEnv.cwd,
      permissions: 'agent',
      env: {
        ...agents.env,
        RECORDING_AGENT_LOG: log,
        RECORDING_AGENT_HOME_VAR: 'RECORDING_HOME',
        RECORDING_USER_DIR: userDir,
      },
    });
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    const session = (await readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((line) => line.kind === 'session/new');
    expect(session.argv).toEqual(['--extended']);
    expect(session.tools).toContain('first_echo');
    // What the agent found when its process started: the overlay was there already.
    const home = session.homeAtStart;
    expect(home.files).toEqual(
      expect.arrayContaining(['config.yaml', 'profile.yaml', 'skills/', 'skills/first-notes@']),
    );
    // The guidance is read at session/new (its own readAt): written by then.
    expect(session.home.files).toContain('AGENTS.md');
    expect(home.yaml['profile.yaml']).toBe('profile: reviewer # from the package\n');
    const config: string = home.yaml['config.yaml'];
    expect(config).toContain('# the user config');
    expect(config).toContain('model: user-model');
    expect(config).toContain('/opt/user-skills');
    expect(config).toContain(`${home.dir}/skills`);
    expect(await readFile(join(userDir, 'config.yaml'), 'utf8')).toBe(USER_CONFIG);

    expect((await agents.daemon.control('DELETE', `/v1/sessions/${info.id}`)).status).toBe(200);
    expect(processExists(session.pid)).toBe(false);
  }, 60_000);

  it('refuses a changed byte, another key, another version and code files, leaving the installed extension as it was', async () => {
    const before = await homeSnapshot(agentsDir);
    const listedBefore = (await agents.daemon.control('GET', '/v1/agents')).body;
    expect(listedBefore.agents).toHaveLength(1);
    const cases: [string, Partial<ExtensionSpec>, string][] = [
      ['one byte changed', { tamper: true }, 'TUTTI_ERR_EXTENSION_BAD_SIGNATURE'],
      [
        'another key',
        { signWith: publisherKeys().privateKey },
        'TUTTI_ERR_EXTENSION_BAD_SIGNATURE',
      ],
      ['another version', { listVersion: '1.0.1' }, 'TUTTI_ERR_EXTENSION_VERSION_MISMATCH'],
      ['a .js file', { codeFile: 'js' }, 'TUTTI_ERR_EXTENSION_NOT_DATA'],
      ['a #! file', { codeFile: 'shebang' }, 'TUTTI_ERR_EXTENSION_NOT_DATA'],
      ['an executable file', { codeFile: 'executable' }, 'TUTTI_ERR_EXTENSION_NOT_DATA'],
    ];
    for (const [what, faults, code] of cases) {
      const published = await extension(faults);
      const answer = await agents.daemon.control('POST', '/v1/agents/install', {
        extension: published.source,
      });
      expect(answer.status, what).toBe(422);
      expect(answer.body, what).toMatchObject({ error: { code } });
      expect(await homeSnapshot(agentsDir), what).toEqual(before);
      expect((await agents.daemon.control('GET', '/v1/agents')).body, what).toEqual(listedBefore);
    }
  }, 60_000);
});
