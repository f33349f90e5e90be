import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { parseManifest, resolveReleasePaths } from '../manifest/index.js';
import type { InstalledConnector } from '../store/index.js';
import { openConnectorSandbox, type SandboxLogger } from './connector-sandbox.js';
import { findOnPath } from './server-policy.js';
import type { ProcessLaunch, SandboxPlatform, SandboxPolicy } from './types.js';

let root: string;
/** The daemon's home. */
let home: string;
/** The user's home (never the real one). */
let userHome: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'tutti-connector-sandbox-')));
  home = join(root, 'daemon');
  userHome = join(root, 'user');
  await mkdir(home);
  await mkdir(userHome);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The daemon's environment the tests pass: a base, a proxy and secrets of its own. */
const daemonEnv = (): NodeJS.ProcessEnv => ({
  PATH: '/usr/bin:/bin',
  HOME: userHome,
  LANG: 'C.UTF-8',
  HTTPS_PROXY: 'http://proxy.corp:3128',
  GIT_AUTHOR_NAME: 'Me',
  AWS_SECRET_ACCESS_KEY: 'daemon-secret',
  TUTTI_TOKEN: 'tutti-secret',
});

/** An installed connector with `mcp` (and `auth`), its release folder made. */
async function installed(
  key: string,
  mcp: Record<string, unknown>,
  auth: Record<string, unknown> = { kind: 'none' },
): Promise<InstalledConnector> {
  const manifest = parseManifest(
    { key, name: key, description: 'A test connector.', version: '1.0.0', mcp, auth },
    'inline',
  );
  const releaseDir = join(home, 'releases', `${key}-digest`);
  await mkdir(releaseDir, { recursive: true });
  return {
    key,
    manifest,
    releaseDir,
    digest: 'd'.repeat(64),
    revision: 1,
    installedAt: '2025-01-01T00:00:00.000Z',
    paths: resolveReleasePaths(manifest, releaseDir),
    skills: [],
  };
}

/** A logger that keeps its lines. */
function recordingLogger(): SandboxLogger & { lines: [string, object, string?][] } {
  const lines: [string, object, string?][] = [];
  return {
    lines,
    info: (object, message) => lines.push(['info', object, message]),
    warn: (object, message) => lines.push(['warn', object, message]),
  };
}

/** A platform whose probe fails with `reason`; it never wraps. */
function failingPlatform(reason: string): SandboxPlatform & { probes: number } {
  const platform = {
    name: 'stub',
    probes: 0,
    async probe() {
      platform.probes += 1;
      return { ok: false as const, reason };
    },
    wrap(): ProcessLaunch {
      throw new Error('wrap must not be called');
    },
  };
  return platform;
}

/** A platform whose probe works and whose wrap records what it was given. */
function workingPlatform(): SandboxPlatform & {
  wrapped: { launch: ProcessLaunch; policy: SandboxPolicy }[];
} {
  const wrapped: { launch: ProcessLaunch; policy: SandboxPolicy }[] = [];
  return {
    name: 'stub',
    wrapped,
    async probe() {
      return { ok: true };
    },
    wrap(launch, policy) {
      wrapped.push({ launch, policy });
      return {
        command: '/stub/wrapper',
        args: [launch.command, ...launch.args],
        env: launch.env,
        cwd: launch.cwd,
      };
    },
  };
}

const notesMcp = {
  command: 'node',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
  args: ['./server.mjs', '--db=${TUTTI_CONNECTOR_STATE_DIR}/db.json'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
  env: { MEMORY_FILE_PATH: '${TUTTI_CONNECTOR_STATE_DIR}/memory.jsonl' },
};
const notesAuth = { kind: 'api_key', env: 'NOTES_TOKEN' };

describe('openConnectorSandbox with --sandbox off', () => {
  it('never probes, isolates nothing and logs nothing', async () => {
    const logger = recordingLogger();
    const platform: SandboxPlatform = {
      name: 'stub',
      probe: () => {
        throw new Error('probe must not be called');
      },
      wrap: () => {
        throw new Error('wrap must not be called');
      },
    };
    const sandbox = await openConnectorSandbox({
      mode: 'off',
      home,
      userHome,
      env: daemonEnv(),
      platform,
      logger,
    });
    expect(sandbox).toMatchObject({ mode: 'off', platform: undefined, unavailable: undefined });
    const connector = await installed('notes', notesMcp);
    const prepared = await sandbox.prepare(connector, {});
    expect(prepared.isolated).toBe(false);
    expect(prepared.launch.cwd).toBe(join(home, 'connector-data/notes'));
    expect(sandbox.view(connector)?.isolation).toBe('off');
    expect(logger.lines).toEqual([]);
  });
});

describe('openConnectorSandbox where the sandbox does not work', () => {
  it('under auto logs one warning and launches the server unisolated in its state folder', async () => {
    const logger = recordingLogger();
    const platform = failingPlatform('bwrap (bubblewrap) is not on PATH');
    const sandbox = await openConnectorSandbox({
      mode: 'auto',
      home,
      userHome,
      env: daemonEnv(),
      platform,
      logger,
    });
    expect(platform.probes).toBe(1);
    expect(sandbox).toMatchObject({
      mode: 'auto',
      platform: undefined,
      unavailable: 'bwrap (bubblewrap) is not on PATH',
    });
    expect(logger.lines).toEqual([
      [
        'warn',
        { sandbox: 'auto', reason: 'bwrap (bubblewrap) is not on PATH' },
        'connector servers run without isolation: bwrap (bubblewrap) is not on PATH',
      ],
    ]);

    const connector = await installed('notes', notesMcp, notesAuth);
    const prepared = await sandbox.prepare(connector, { NOTES_TOKEN: 'credential-secret' });
    const state = join(home, 'connector-data/notes');
    expect(prepared.isolated).toBe(false);
    expect(prepared.launch).toEqual({
      command: 'node',
      args: [join(connector.releaseDir, 'server.mjs'), `--db=${state}/db.json`],
      env: {
        PATH: '/usr/bin:/bin',
        HOME: userHome,
        LANG: 'C.UTF-8',
        HTTPS_PROXY: 'http://proxy.corp:3128',
        MEMORY_FILE_PATH: `${state}/memory.jsonl`,
        NOTES_TOKEN: 'credential-secret',
        TUTTI_CONNECTOR_STATE_DIR: state,
      },
      cwd: state,
    });
    expect((await stat(state)).mode & 0o777).toBe(0o700);
    expect(existsSync(join(home, 'tmp/connectors'))).toBe(false);
    await prepared.release();
    expect(sandbox.view(connector)).toMatchObject({ isolation: 'not-isolated' });
    expect(sandbox.view(connector)).not.toHaveProperty('platform');
    expect(logger.lines).toHaveLength(1);
  });

  it('under required refuses to prepare the server with TUTTI_ERR_SANDBOX_UNAVAILABLE', async () => {
    const logger = recordingLogger();
    const sandbox = await openConnectorSandbox({
      mode: 'required',
      home,
      userHome,
      env: daemonEnv(),
      platform: failingPlatform('bwrap (bubblewrap) is not on PATH'),
      logger,
    });
    expect(logger.lines).toEqual([
      [
        'warn',
        { sandbox: 'required', reason: 'bwrap (bubblewrap) is not on PATH' },
        'no connector server will start (--sandbox required): bwrap (bubblewrap) is not on PATH',
      ],
    ]);
    const connector = await installed('notes', notesMcp);
    const error = await sandbox.prepare(connector, {}).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isTuttiError(error, 'TUTTI_ERR_SANDBOX_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toContain(
      'The MCP server of connector "notes" was not started: tuttid runs with --sandbox required and cannot isolate it here (bwrap (bubblewrap) is not on PATH).',
    );
    expect(existsSync(join(home, 'connector-data/notes'))).toBe(false);
    expect(sandbox.view(connector)).toMatchObject({ isolation: 'refused', profile: 'default' });
  });
});

describe('openConnectorSandbox where the sandbox works', () => {
  it('wraps the launch under the policy, in its state folder, with the isolated environment', async () => {
    const logger = recordingLogger();
    const platform = workingPlatform();
    await mkdir(join(userHome, 'notes'));
    const sandbox = await openConnectorSandbox({
      mode: 'required',
      home,
      userHome,
      env: daemonEnv(),
      platform,
      logger,
    });
    expect(sandbox).toMatchObject({ mode: 'required', platform: 'stub', unavailable: undefined });
    expect(logger.lines).toEqual([
      ['info', { sandbox: 'required', platform: 'stub' }, 'connector servers run isolated'],
    ]);
    const connector = await installed(
      'notes',
      {
        ...notesMcp,
        sandbox: {
          filesystem: { read: ['~/notes'] },
          network: 'none',
          env: ['GIT_AUTHOR_NAME', 'TUTTI_TOKEN'],
          limits: { memoryMiB: 512, processes: 2048 },
        },
      },
      notesAuth,
    );
    const prepared = await sandbox.prepare(connector, { NOTES_TOKEN: 'credential-secret' });
    const state = join(home, 'connector-data/notes');
    expect(platform.wrapped).toHaveLength(1);
    const [{ launch, policy }] = platform.wrapped as [
      { launch: ProcessLaunch; policy: SandboxPolicy },
    ];
    const temp = launch.env.TMPDIR as string;
    expect(dirname(temp)).toBe(join(home, 'tmp/connectors'));
    expect(temp).toMatch(/\/notes-[^/]+$/);
    expect(launch).toEqual({
      command: 'node',
      args: [join(connector.releaseDir, 'server.mjs'), `--db=${state}/db.json`],
      env: {
        PATH: '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        GIT_AUTHOR_NAME: 'Me',
        HOME: state,
        TMPDIR: temp,
        MEMORY_FILE_PATH: `${state}/memory.jsonl`,
        NOTES_TOKEN: 'credential-secret',
        TUTTI_CONNECTOR_STATE_DIR: state,
      },
      cwd: state,
    });
    expect(policy.network).toBe('none');
    expect(policy.limits).toEqual({ memoryBytes: 512 * 1024 * 1024, processes: 1024 });
    expect(policy.mounts.slice(-3)).toEqual([
      { kind: 'bind', source: connector.releaseDir, target: connector.releaseDir, writable: false },
      { kind: 'bind', source: state, target: state, writable: true },
      { kind: 'bind', source: temp, target: temp, writable: true },
    ]);
    expect(policy.mounts).toContainEqual({
      kind: 'bind',
      source: join(userHome, 'notes'),
      target: join(userHome, 'notes'),
      writable: false,
    });
    expect(prepared).toMatchObject({
      isolated: true,
      launch: { command: '/stub/wrapper', cwd: state },
    });
    expect(existsSync(temp)).toBe(true);
    await prepared.release();
    expect(existsSync(temp)).toBe(false);
  });

  it('logs each declared path it does not give, with the reason', async () => {
    const logger = recordingLogger();
    await mkdir(join(userHome, '.ssh'));
    await symlink('.ssh', join(userHome, 'keys'));
    const sandbox = await openConnectorSandbox({
      mode: 'auto',
      home,
      userHome,
      env: daemonEnv(),
      platform: workingPlatform(),
      logger,
    });
    const connector = await installed('notes', {
      command: 'node',
      sandbox: { filesystem: { read: ['~/keys'] } },
    });
    const prepared = await sandbox.prepare(connector, {});
    await prepared.release();
    expect(logger.lines.slice(1)).toEqual([
      [
        'warn',
        {
          connector: 'notes',
          path: '~/keys',
          reason: 'it resolves to a folder that holds keys, credentials or browser data',
        },
        'connector "notes" asked for ~/keys, which is not given: it resolves to a folder that holds keys, credentials or browser data',
      ],
    ]);
  });

  it('makes the private _npx folder of an npx server and passes the npm cache setting', async () => {
    const platform = workingPlatform();
    const sandbox = await openConnectorSandbox({
      mode: 'auto',
      home,
      userHome,
      env: daemonEnv(),
      platform,
    });
    const connector = await installed('memory', {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
    });
    const prepared = await sandbox.prepare(connector, {});
    expect(existsSync(join(home, 'connector-data/memory/.npx'))).toBe(true);
    expect(platform.wrapped[0]?.launch.env).toMatchObject({
      npm_config_cache: join(userHome, '.npm'),
    });
    await prepared.release();
  });

  it('shows names of its variables but never their values, with its home paths, network, limits and profile', async () => {
    const sandbox = await openConnectorSandbox({
      mode: 'auto',
      home,
      userHome,
      env: daemonEnv(),
      platform: workingPlatform(),
    });
    const declared = await installed(
      'notes',
      {
        ...notesMcp,
        sandbox: {
          filesystem: { read: ['~/notes'], write: ['~/Projects/site'] },
          env: ['GIT_AUTHOR_NAME', 'AWS_SECRET_ACCESS_KEY'],
          limits: { memoryMiB: 16_384 },
        },
      },
      notesAuth,
    );
    const view = sandbox.view(declared);
    expect(view).toEqual({
      isolation: 'isolated',
      platform: 'stub',
      profile: 'declared',
      network: 'host',
      home: { read: ['~/notes'], write: ['~/Projects/site'] },
      env: [
        'AWS_SECRET_ACCESS_KEY',
        'GIT_AUTHOR_NAME',
        'HOME',
        'HTTPS_PROXY',
        'LANG',
        'MEMORY_FILE_PATH',
        'NOTES_TOKEN',
        'PATH',
        'TMPDIR',
        'TUTTI_CONNECTOR_STATE_DIR',
      ],
      limits: { memoryMiB: 8192, processes: 512 },
    });
    const shown = JSON.stringify(view);
    for (const value of [
      'daemon-secret',
      'tutti-secret',
      'proxy.corp',
      'C.UTF-8',
      home,
      userHome,
    ]) {
      expect(shown).not.toContain(value);
    }

    const plain = await installed('plain', { command: 'node' });
    expect(sandbox.view(plain)).toEqual({
      isolation: 'isolated',
      platform: 'stub',
      profile: 'default',
      network: 'host',
      home: { read: [], write: [] },
      env: ['HOME', 'HTTPS_PROXY', 'LANG', 'PATH', 'TMPDIR', 'TUTTI_CONNECTOR_STATE_DIR'],
      limits: { memoryMiB: 2048, processes: 512 },
    });
  });

  it('shows nothing for, and prepares nothing of, a remote connector', async () => {
    const sandbox = await openConnectorSandbox({
      mode: 'auto',
      home,
      userHome,
      env: daemonEnv(),
      platform: workingPlatform(),
    });
    const remote = await installed('docs', { url: 'https://docs.example.com/mcp' });
    expect(sandbox.view(remote)).toBeUndefined();
    await expect(sandbox.prepare(remote, {})).rejects.toThrow('connector docs has no stdio server');
  });
});

describe('openConnectorSandbox folders', () => {
  it('empties the stale temp folders of the servers at open, and nothing else of the home', async () => {
    await mkdir(join(home, 'tmp/connectors/notes-old/deep'), { recursive: true });
    await writeFile(join(home, 'tmp/connectors/notes-old/deep/file'), 'stale');
    await mkdir(join(home, 'tmp/other'), { recursive: true });
    await mkdir(join(home, 'connector-data/notes'), { recursive: true });
    await openConnectorSandbox({
      mode: 'auto',
      home,
      userHome,
      env: daemonEnv(),
      platform: workingPlatform(),
    });
    expect(existsSync(join(home, 'tmp/connectors'))).toBe(false);
    expect(await readdir(join(home, 'tmp'))).toEqual(['other']);
    expect(existsSync(join(home, 'connector-data/notes'))).toBe(true);
  });

  it('names the state folder of a key, and forget removes it and only it', async () => {
    const sandbox = await openConnectorSandbox({ mode: 'off', home, userHome, env: daemonEnv() });
    expect(sandbox.stateDir('notes')).toBe(join(home, 'connector-data/notes'));
    await (await sandbox.prepare(await installed('notes', notesMcp), {})).release();
    await (await sandbox.prepare(await installed('memory', notesMcp), {})).release();
    await writeFile(join(home, 'connector-data/notes/db.json'), '{}');
    await sandbox.forget('notes');
    expect(existsSync(join(home, 'connector-data/notes'))).toBe(false);
    expect(existsSync(join(home, 'connector-data/memory'))).toBe(true);
    await sandbox.forget('never-installed');
  });
});

const hasBubblewrap =
  process.platform === 'linux' &&
  findOnPath('bwrap', process.env.PATH) !== undefined &&
  findOnPath('prlimit', process.env.PATH) !== undefined;

/** Runs `launch` (its files open as descriptors 3, ...) and answers its stdout. */
function run(launch: ProcessLaunch): Promise<string> {
  return new Promise((resolve, reject) => {
    const files = (launch.files ?? []).map((path) => openSync(path, 'r'));
    let stdout = '';
    let stderr = '';
    const child = spawn(launch.command, [...launch.args], {
      env: { ...launch.env },
      cwd: launch.cwd,
      timeout: 30_000,
      stdio: ['ignore', 'pipe', 'pipe', ...files],
    });
    for (const fd of files) closeSync(fd);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`exit ${code}\n${stderr}`));
    });
  });
}

/** What the probe tool reports: a line per check, `name=answer`. */
const PROBE_TOOL = `#!/bin/sh
user_home="$1"; daemon_home="$2"; release="$3"
check() { name="$1"; shift; if "$@" >/dev/null 2>&1; then echo "$name=yes"; else echo "$name=no"; fi; }
check read-declared cat "$user_home/notes/today.txt"
check read-ssh cat "$user_home/.ssh/id_ed25519"
check read-other-home cat "$user_home/diary.txt"
check read-daemon-home cat "$daemon_home/credentials.json"
check write-state sh -c 'echo ok > "$TUTTI_CONNECTOR_STATE_DIR/written"'
check write-release sh -c "echo x > '$release/written'"
check write-declared sh -c "echo x > '$user_home/notes/written'"
check see-secret sh -c 'env | grep -q daemon-secret'
echo "home=$HOME"
`;

describe.runIf(hasBubblewrap)('openConnectorSandbox with the real bubblewrap', () => {
  it('runs a server from ~/bin isolated: its declared notes, its state folder, no keys, no daemon home, no secret', async () => {
    home = join(userHome, '.tutti'); // where the daemon's home is by default
    await mkdir(home);
    await mkdir(join(userHome, 'notes'));
    await writeFile(join(userHome, 'notes/today.txt'), 'today');
    await writeFile(join(userHome, 'diary.txt'), 'private');
    await mkdir(join(userHome, '.ssh'));
    await writeFile(join(userHome, '.ssh/id_ed25519'), 'private key');
    await writeFile(join(home, 'credentials.json'), '{"token":"x"}');
    await mkdir(join(userHome, 'bin'));
    await writeFile(join(userHome, 'bin/probe-tool'), PROBE_TOOL);
    await chmod(join(userHome, 'bin/probe-tool'), 0o755);
    const sandbox = await openConnectorSandbox({
      mode: 'required',
      home,
      userHome,
      env: {
        PATH: `${join(userHome, 'bin')}:${process.env.PATH}`,
        HOME: userHome,
        AWS_SECRET_ACCESS_KEY: 'daemon-secret',
      },
    });
    expect(sandbox.platform).toBe('bubblewrap');
    const connector = await installed('probe', {
      command: 'probe-tool',
      args: [userHome, home, './'],
      sandbox: { filesystem: { read: ['~/notes'] }, network: 'none' },
    });
    const prepared = await sandbox.prepare(connector, {});
    try {
      expect(prepared.isolated).toBe(true);
      const report = await run(prepared.launch);
      const state = join(home, 'connector-data/probe');
      expect(report.trim().split('\n')).toEqual([
        'read-declared=yes',
        'read-ssh=no',
        'read-other-home=no',
        'read-daemon-home=no',
        'write-state=yes',
        'write-release=no',
        'write-declared=no',
        'see-secret=no',
        `home=${state}`,
      ]);
      expect(await readFile(join(state, 'written'), 'utf8')).toBe('ok\n');
      expect(existsSync(join(connector.releaseDir, 'written'))).toBe(false);
    } finally {
      await prepared.release();
    }
  });
});
