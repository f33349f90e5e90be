import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxDeclaration, sandboxSchema } from '../manifest/index.js';
import {
  DEFAULT_SANDBOX_LIMITS,
  effectiveLimits,
  findOnPath,
  SANDBOX_LIMIT_CAPS,
  type ServerPolicyInput,
  serverPolicy,
} from './server-policy.js';
import type { SandboxBind, SandboxHide } from './types.js';

const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt', '/etc'];
const MiB = 1024 * 1024;

let root: string;
let home: string;
let daemonHome: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'tutti-policy-')));
  home = join(root, 'home');
  daemonHome = join(home, '.tutti');
  for (const folder of ['releases/abc', 'connector-data/notes', 'tmp/connectors/notes-1']) {
    await mkdir(join(daemonHome, folder), { recursive: true });
  }
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Makes folders (a trailing `/`) and files under the fake home. */
async function make(...paths: string[]): Promise<void> {
  for (const path of paths) {
    const absolute = join(home, path);
    if (path.endsWith('/')) await mkdir(absolute, { recursive: true });
    else {
      await mkdir(dirname(absolute), { recursive: true });
      await writeFile(absolute, 'secret\n');
    }
  }
}

/** An executable file at `path`. */
async function executable(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, '#!/bin/sh\n');
  await chmod(path, 0o755);
}

const declare = (block: unknown): SandboxDeclaration => sandboxSchema.parse(block);

function policyOf(extra: Partial<ServerPolicyInput> = {}) {
  return serverPolicy({
    command: 'sh',
    releaseDir: join(daemonHome, 'releases/abc'),
    stateDir: join(daemonHome, 'connector-data/notes'),
    tempDir: join(daemonHome, 'tmp/connectors/notes-1'),
    declared: undefined,
    daemonEnv: { PATH: '/usr/bin:/bin' },
    userHome: home,
    daemonHome,
    ...extra,
  });
}

const isSystem = (mount: SandboxBind | SandboxHide) =>
  mount.kind === 'bind'
    ? SYSTEM.some((folder) => mount.source === folder || mount.source.startsWith(`${folder}/`))
    : mount.path.startsWith('/etc/');

/** The mounts besides the system ones, as short lines with the temp root left out. */
function own(mounts: readonly (SandboxBind | SandboxHide)[]): string[] {
  const short = (path: string) => path.replace(root, '');
  return mounts
    .filter((mount) => !isSystem(mount))
    .map((mount) =>
      mount.kind === 'hide'
        ? `hide ${mount.folder ? 'folder' : 'file'} ${short(mount.path)}`
        : `${mount.writable ? 'rw' : 'ro'}${mount.optional ? '?' : ''} ${short(mount.source)}` +
          (mount.source === mount.target ? '' : ` at ${short(mount.target)}`),
    );
}

const OWN_FOLDERS = [
  'ro /home/.tutti/releases/abc',
  'rw /home/.tutti/connector-data/notes',
  'rw /home/.tutti/tmp/connectors/notes-1',
];

describe('serverPolicy mounts', () => {
  it('binds the system first, read-only and without /etc as a whole, and its own folders last', () => {
    const { policy, refused, launcherEnv } = policyOf();
    const mounts = policy.mounts;
    const system = mounts.filter(isSystem);
    expect(mounts.slice(0, system.length)).toEqual(system);
    expect(system.map((m) => (m as SandboxBind).source)).toContain('/usr');
    for (const mount of system) {
      if (mount.kind === 'hide') {
        // The private keys of /etc/ssl and /etc/pki, a daemon run as root could read.
        expect(mount.path).toMatch(/^\/etc\/(ssl|pki\/tls)\/private$/);
        continue;
      }
      expect(mount).toMatchObject({ writable: false, target: mount.source });
      expect(mount.source).not.toBe('/etc');
    }
    expect(own(mounts)).toEqual(OWN_FOLDERS);
    expect(refused).toEqual([]);
    expect(launcherEnv).toEqual({});
  });

  it('binds a declared read path read-only and a write path writable, after the system and before its own folders', async () => {
    await make('notes/', 'Projects/site/');
    const { policy } = policyOf({
      declared: declare({ filesystem: { read: ['~/notes'], write: ['~/Projects/site'] } }),
    });
    expect(own(policy.mounts)).toEqual([
      'ro /home/notes',
      'rw /home/Projects/site',
      ...OWN_FOLDERS,
    ]);
    const firstDeclared = policy.mounts.findIndex((m) => !isSystem(m));
    expect(policy.mounts.slice(firstDeclared).some(isSystem)).toBe(false);
  });

  it('skips a declared path that does not exist, without refusing it', () => {
    const { policy, refused } = policyOf({
      declared: declare({ filesystem: { read: ['~/absent'], write: ['~/also/absent'] } }),
    });
    expect(own(policy.mounts)).toEqual(OWN_FOLDERS);
    expect(refused).toEqual([]);
  });

  it('binds a declared symlink at its own path from where it resolves', async () => {
    await make('data/notes/');
    await symlink('data/notes', join(home, 'notes'));
    const { policy } = policyOf({ declared: declare({ filesystem: { read: ['~/notes'] } }) });
    expect(own(policy.mounts)).toEqual(['ro /home/data/notes at /home/notes', ...OWN_FOLDERS]);
  });

  it('refuses a declared symlink into a protected folder, the daemon home, the whole home or outside the home, saying why', async () => {
    await make('.ssh/id_ed25519', 'elsewhere/');
    await mkdir(join(root, 'outside'));
    await symlink('.ssh', join(home, 'keys'));
    await symlink('.ssh/id_ed25519', join(home, 'key-file'));
    await symlink('.tutti/connector-data', join(home, 'data'));
    await symlink('.', join(home, 'everything'));
    await symlink(join(root, 'outside'), join(home, 'out'));
    const { policy, refused } = policyOf({
      declared: declare({
        filesystem: {
          read: ['~/keys', '~/key-file', '~/data', '~/everything'],
          write: ['~/out', '~/elsewhere'],
        },
      }),
    });
    const keys = 'it resolves to a folder that holds keys, credentials or browser data';
    expect(refused).toEqual([
      { path: '~/keys', reason: keys },
      { path: '~/key-file', reason: keys },
      { path: '~/data', reason: "it is inside the daemon's home" },
      { path: '~/everything', reason: 'it is the whole home' },
      { path: '~/out', reason: 'it resolves to a place outside the home' },
    ]);
    expect(own(policy.mounts)).toEqual(['rw /home/elsewhere', ...OWN_FOLDERS]);
  });

  it('hides the protected folders and files a declared folder holds, after every declared bind', async () => {
    await make('.config/gh/hosts.yml', '.config/hub', '.config/app/settings.json', 'Projects/');
    const { policy, refused } = policyOf({
      declared: declare({ filesystem: { read: ['~/.config'], write: ['~/Projects'] } }),
    });
    expect(refused).toEqual([]);
    expect(own(policy.mounts)).toEqual([
      'ro /home/.config',
      'rw /home/Projects',
      'hide folder /home/.config/gh',
      'hide file /home/.config/hub',
      ...OWN_FOLDERS,
    ]);
  });

  it("hides the daemon's home inside a declared folder, under the server's own folders, and never makes that folder writable", async () => {
    daemonHome = join(home, 'work/.tutti');
    for (const folder of ['releases/abc', 'connector-data/notes', 'tmp/connectors/notes-1']) {
      await mkdir(join(daemonHome, folder), { recursive: true });
    }
    const writable = policyOf({
      declared: declare({ filesystem: { write: ['~/work'] } }),
      releaseDir: join(daemonHome, 'releases/abc'),
      stateDir: join(daemonHome, 'connector-data/notes'),
      tempDir: join(daemonHome, 'tmp/connectors/notes-1'),
    });
    expect(writable.refused).toEqual([
      {
        path: '~/work',
        reason:
          "it holds a folder of keys, credentials or browser data, or the daemon's home: declare the folder below it the server writes to",
      },
    ]);
    const { policy } = policyOf({
      declared: declare({ filesystem: { read: ['~/work'] } }),
      releaseDir: join(daemonHome, 'releases/abc'),
      stateDir: join(daemonHome, 'connector-data/notes'),
      tempDir: join(daemonHome, 'tmp/connectors/notes-1'),
    });
    expect(own(policy.mounts)).toEqual([
      'ro /home/work',
      'hide folder /home/work/.tutti',
      'ro /home/work/.tutti/releases/abc',
      'rw /home/work/.tutti/connector-data/notes',
      'rw /home/work/.tutti/tmp/connectors/notes-1',
    ]);
  });

  it('hides a protected folder where the server sees it when the declared folder is a symlink', async () => {
    await make('dotfiles/config/gh/hosts.yml', 'dotfiles/config/app/');
    await symlink('dotfiles/config', join(home, '.config'));
    const { policy } = policyOf({ declared: declare({ filesystem: { read: ['~/.config'] } }) });
    expect(own(policy.mounts)).toEqual([
      'ro /home/dotfiles/config at /home/.config',
      'hide folder /home/.config/gh',
      ...OWN_FOLDERS,
    ]);
  });

  it('hides or refuses a protected folder that is itself a symlink into a declared folder', async () => {
    await make('dotfiles/ssh/id_ed25519', 'dotfiles/vimrc');
    await symlink('dotfiles/ssh', join(home, '.ssh'));
    const { policy, refused } = policyOf({
      declared: declare({ filesystem: { read: ['~/dotfiles', '~/dotfiles/ssh'] } }),
    });
    expect(refused).toEqual([
      {
        path: '~/dotfiles/ssh',
        reason: 'it resolves to a folder that holds keys, credentials or browser data',
      },
    ]);
    expect(own(policy.mounts)).toEqual([
      'ro /home/dotfiles',
      'hide folder /home/dotfiles/ssh',
      ...OWN_FOLDERS,
    ]);
  });
});

describe('serverPolicy for npx and npm servers', () => {
  it.each([['npx'], ['npm'], ['/usr/local/bin/npx']])(
    'gives %s the shared npm content cache and a private _npx from its state folder',
    (command) => {
      const cache = join(root, 'npm-cache');
      const { policy, launcherEnv } = policyOf({
        command,
        daemonEnv: { PATH: '/usr/bin:/bin', npm_config_cache: cache },
      });
      expect(own(policy.mounts)).toEqual([
        'rw? /npm-cache/_cacache',
        'rw /home/.tutti/connector-data/notes/.npx at /npm-cache/_npx',
        ...OWN_FOLDERS,
      ]);
      expect(launcherEnv).toEqual({
        npm_config_cache: cache,
        npm_config_update_notifier: 'false',
        npm_config_fund: 'false',
      });
    },
  );

  it('uses ~/.npm when the daemon names no npm cache, and never binds ~/.npmrc', async () => {
    await make('.npmrc', '.npm/_cacache/');
    const { policy, launcherEnv } = policyOf({ command: 'npx' });
    expect(own(policy.mounts)).toEqual([
      'rw? /home/.npm/_cacache',
      'rw /home/.tutti/connector-data/notes/.npx at /home/.npm/_npx',
      ...OWN_FOLDERS,
    ]);
    expect(launcherEnv.npm_config_cache).toBe(join(home, '.npm'));
  });

  it.each([['node'], ['npx-like'], ['./bin/npm.js']])('gives %s no npm cache', (command) => {
    const { policy, launcherEnv } = policyOf({
      command,
      daemonEnv: { PATH: '/usr/bin:/bin', npm_config_cache: join(root, 'npm-cache') },
    });
    expect(own(policy.mounts)).toEqual(OWN_FOLDERS);
    expect(launcherEnv).toEqual({});
  });
});

describe('serverPolicy CA files', () => {
  beforeEach(async () => {
    await mkdir(join(root, 'ca'));
    await writeFile(join(root, 'ca/corp.pem'), 'cert\n');
    await symlink('corp.pem', join(root, 'ca/link.pem'));
    await make('certs/mine.pem');
  });

  const caEnv = () => ({
    PATH: '/usr/bin:/bin',
    NODE_EXTRA_CA_CERTS: join(root, 'ca/corp.pem'),
    SSL_CERT_FILE: join(root, 'ca/link.pem'),
    REQUESTS_CA_BUNDLE: join(home, 'certs/mine.pem'),
    CURL_CA_BUNDLE: 'relative/ca.pem',
    SSL_CERT_DIR: join(root, 'ca/absent'),
  });

  it('binds the CA files the daemon names outside the home, read-only, when the server has the network', () => {
    const { policy } = policyOf({ daemonEnv: caEnv() });
    expect(own(policy.mounts)).toEqual([
      'ro? /ca/corp.pem at /ca/link.pem',
      'ro? /ca/corp.pem',
      ...OWN_FOLDERS,
    ]);
  });

  it('binds no CA file for a server without the network', () => {
    const { policy } = policyOf({ daemonEnv: caEnv(), declared: declare({ network: 'none' }) });
    expect(policy.network).toBe('none');
    expect(own(policy.mounts)).toEqual(OWN_FOLDERS);
  });
});

describe('serverPolicy network and limits', () => {
  it('keeps the host network and the default limits without a declaration', () => {
    expect(policyOf().policy).toMatchObject({
      network: 'host',
      limits: { memoryBytes: 2048 * MiB, processes: 512 },
    });
    expect(policyOf({ declared: declare({}) }).policy.network).toBe('host');
  });

  it('takes declared limits within the cap and clamps larger ones to it', () => {
    expect(
      policyOf({ declared: declare({ limits: { memoryMiB: 128, processes: 16 } }) }).policy.limits,
    ).toEqual({ memoryBytes: 128 * MiB, processes: 16 });
    expect(
      policyOf({ declared: declare({ limits: { memoryMiB: 65_536, processes: 4096 } }) }).policy
        .limits,
    ).toEqual({ memoryBytes: 8192 * MiB, processes: 1024 });
  });

  it('answers the effective limits in MiB: defaults, declared, capped', () => {
    expect(DEFAULT_SANDBOX_LIMITS).toEqual({ memoryMiB: 2048, processes: 512 });
    expect(SANDBOX_LIMIT_CAPS).toEqual({ memoryMiB: 8192, processes: 1024 });
    expect(effectiveLimits(undefined)).toEqual({ memoryMiB: 2048, processes: 512 });
    expect(effectiveLimits(declare({ limits: { processes: 64 } }))).toEqual({
      memoryMiB: 2048,
      processes: 64,
    });
    expect(effectiveLimits(declare({ limits: { memoryMiB: 8193, processes: 1025 } }))).toEqual({
      memoryMiB: 8192,
      processes: 1024,
    });
  });
});

describe('serverPolicy runtime of the command', () => {
  it('binds read-only the prefix of a command found on PATH outside the system folders', async () => {
    await executable(join(root, 'runtime/bin/tool'));
    const { policy } = policyOf({
      command: 'tool',
      daemonEnv: { PATH: `/usr/bin:${join(root, 'empty')}:${join(root, 'runtime/bin')}` },
    });
    expect(own(policy.mounts)).toEqual(['ro /runtime', ...OWN_FOLDERS]);
  });

  it('binds the folder a command is found in on PATH and the install its symlink resolves to, and a folder not named bin as it is', async () => {
    await executable(join(root, 'runtime/bin/tool'));
    await executable(join(root, 'tools/other'));
    await mkdir(join(root, 'links'));
    await symlink(join(root, 'runtime/bin/tool'), join(root, 'links/tool'));
    const path = `${join(root, 'links')}:${join(root, 'tools')}:/usr/bin`;
    // /links too: inside, `tool` is looked up on the same PATH.
    expect(own(policyOf({ command: 'tool', daemonEnv: { PATH: path } }).policy.mounts)).toEqual([
      'ro /links',
      'ro /runtime',
      ...OWN_FOLDERS,
    ]);
    expect(own(policyOf({ command: 'other', daemonEnv: { PATH: path } }).policy.mounts)).toEqual([
      'ro /tools',
      ...OWN_FOLDERS,
    ]);
  });

  it('binds nothing more for a command in the system folders or not found', () => {
    expect(own(policyOf({ command: 'sh' }).policy.mounts)).toEqual(OWN_FOLDERS);
    expect(own(policyOf({ command: 'no-such-tool-here' }).policy.mounts)).toEqual(OWN_FOLDERS);
  });

  it('never binds the whole home for a command in ~/bin: only that bin folder', async () => {
    await make('.ssh/id_ed25519');
    await executable(join(home, 'bin/tool'));
    const { policy } = policyOf({
      command: 'tool',
      daemonEnv: { PATH: `${join(home, 'bin')}:/usr/bin` },
    });
    expect(own(policy.mounts)).toEqual(['ro /home/bin', ...OWN_FOLDERS]);
  });

  it('hides the protected paths inside the prefix of a command under the home', async () => {
    await make('.local/share/keyrings/login.keyring');
    await executable(join(home, '.local/bin/tool'));
    const { policy } = policyOf({
      command: 'tool',
      daemonEnv: { PATH: `${join(home, '.local/bin')}:/usr/bin` },
    });
    expect(own(policy.mounts)).toEqual([
      'ro /home/.local',
      'hide folder /home/.local/share/keyrings',
      ...OWN_FOLDERS,
    ]);
  });

  it("binds nothing of the daemon's home for a command found in it", async () => {
    await executable(join(daemonHome, 'bin/tool'));
    const { policy } = policyOf({
      command: 'tool',
      daemonEnv: { PATH: `${join(daemonHome, 'bin')}:/usr/bin` },
    });
    expect(own(policy.mounts)).toEqual(OWN_FOLDERS);
  });
});

describe('findOnPath', () => {
  it('finds the first file of that name on PATH, skipping empty entries and folders of that name', async () => {
    await mkdir(join(root, 'a/tool'), { recursive: true });
    await executable(join(root, 'b/tool'));
    await executable(join(root, 'c/tool'));
    const path = ['', join(root, 'missing'), join(root, 'a'), join(root, 'b'), join(root, 'c')];
    expect(findOnPath('tool', path.join(':'))).toBe(join(root, 'b/tool'));
    expect(findOnPath('tool', join(root, 'a'))).toBeUndefined();
    expect(findOnPath('tool', undefined)).toBeUndefined();
    expect(findOnPath('tool', '')).toBeUndefined();
  });

  it('takes an absolute command as it is when it exists', async () => {
    await executable(join(root, 'b/tool'));
    expect(findOnPath(join(root, 'b/tool'), undefined)).toBe(join(root, 'b/tool'));
    expect(findOnPath(join(root, 'b/none'), join(root, 'b'))).toBeUndefined();
  });
});
