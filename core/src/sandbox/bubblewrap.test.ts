import { chmod, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bubblewrapArgs, bubblewrapPlatform } from './bubblewrap.js';
import { seccompProgram } from './seccomp.js';
import { findOnPath, systemSymlinks } from './server-policy.js';
import type { SandboxPolicy } from './types.js';

const temps: string[] = [];

afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tutti-bwrap-'));
  temps.push(dir);
  return dir;
}

const MiB = 1024 * 1024;

const policy = (extra: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  mounts: [
    { kind: 'bind', source: '/srv/runtime', target: '/srv/runtime', writable: false },
    { kind: 'bind', source: '/home/me/data/notes', target: '/home/me/notes', writable: false },
    { kind: 'bind', source: '/home/me/Projects', target: '/home/me/Projects', writable: true },
    { kind: 'hide', path: '/home/me/Projects/.tutti', folder: true },
    { kind: 'hide', path: '/home/me/Projects/.netrc', folder: false },
    {
      kind: 'bind',
      source: '/etc/corp/ca.pem',
      target: '/etc/corp/ca.pem',
      writable: false,
      optional: true,
    },
    {
      kind: 'bind',
      source: '/home/me/.npm/_cacache',
      target: '/home/me/.npm/_cacache',
      writable: true,
      optional: true,
    },
    { kind: 'bind', source: '/state/notes', target: '/state/notes', writable: true },
  ],
  network: 'none',
  limits: { memoryBytes: 256 * MiB, processes: 64 },
  ...extra,
});

const hasBubblewrap =
  process.platform === 'linux' &&
  findOnPath('bwrap', process.env.PATH) !== undefined &&
  findOnPath('prlimit', process.env.PATH) !== undefined;

describe('bubblewrapArgs', () => {
  it('unshares everything, dies with the daemon, keeps the server in the group it is stopped by (no --new-session) and maps every mount in order', () => {
    expect(bubblewrapArgs(policy(), '/state/notes')).toEqual([
      '--unshare-all',
      '--die-with-parent',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--ro-bind',
      '/srv/runtime',
      '/srv/runtime',
      '--ro-bind',
      '/home/me/data/notes',
      '/home/me/notes',
      '--bind',
      '/home/me/Projects',
      '/home/me/Projects',
      '--tmpfs',
      '/home/me/Projects/.tutti',
      '--remount-ro',
      '/home/me/Projects/.tutti',
      '--ro-bind',
      '/dev/null',
      '/home/me/Projects/.netrc',
      '--ro-bind-try',
      '/etc/corp/ca.pem',
      '/etc/corp/ca.pem',
      '--bind-try',
      '/home/me/.npm/_cacache',
      '/home/me/.npm/_cacache',
      '--bind',
      '/state/notes',
      '/state/notes',
      '--chdir',
      '/state/notes',
    ]);
  });

  it('shares the network only for network "host"', () => {
    expect(bubblewrapArgs(policy(), '/s')).not.toContain('--share-net');
    const host = bubblewrapArgs(policy({ network: 'host' }), '/s');
    expect(host.slice(0, 3)).toEqual(['--unshare-all', '--die-with-parent', '--share-net']);
    expect(host).not.toContain('--new-session');
    expect(host.filter((arg) => arg === '--share-net')).toHaveLength(1);
  });

  const links = systemSymlinks();

  it.runIf(links.length > 0)(
    'keeps a symlinked system folder as a symlink, but binds it when placed elsewhere',
    () => {
      const [link] = links;
      if (!link) return;
      const args = bubblewrapArgs(
        {
          ...policy(),
          mounts: [
            { kind: 'bind', source: link.path, target: link.path, writable: false },
            { kind: 'bind', source: link.path, target: '/elsewhere', writable: false },
          ],
        },
        '/',
      );
      expect(args.slice(6)).toEqual([
        '--symlink',
        link.target,
        link.path,
        '--ro-bind',
        link.path,
        '/elsewhere',
        '--chdir',
        '/',
      ]);
    },
  );

  it('binds a system folder that is not a symlink', () => {
    const args = bubblewrapArgs(
      {
        ...policy(),
        mounts: [{ kind: 'bind', source: '/usr', target: '/usr', writable: false }],
      },
      '/',
    );
    expect(args.slice(6)).toEqual(['--ro-bind', '/usr', '/usr', '--chdir', '/']);
  });
});

describe('bubblewrapPlatform', () => {
  it('wraps the command in bwrap with prlimit inside, before the command, setting the data and process limits', async () => {
    const bin = await tempFolder();
    await symlink(process.execPath, join(bin, 'bwrap'));
    await symlink(process.execPath, join(bin, 'prlimit'));
    const platform = bubblewrapPlatform({ path: bin });
    const env = { PATH: '/usr/bin', HOME: '/state/notes' };
    const wrapped = platform.wrap(
      { command: 'node', args: ['server.mjs', '--port', '0'], env, cwd: '/state/notes' },
      policy(),
    );
    expect(platform.name).toBe('bubblewrap');
    expect(wrapped).toEqual({
      command: join(bin, 'bwrap'),
      args: [
        ...bubblewrapArgs(policy(), '/state/notes'),
        '--',
        join(bin, 'prlimit'),
        `--data=${256 * MiB}:${256 * MiB}`,
        '--nproc=64:64',
        '--',
        'node',
        'server.mjs',
        '--port',
        '0',
      ],
      env,
      cwd: '/state/notes',
    });
  });

  it('refuses to wrap where bwrap is missing', async () => {
    const platform = bubblewrapPlatform({ path: await tempFolder() });
    expect(() => platform.wrap({ command: 'node', args: [], env: {}, cwd: '/' }, policy())).toThrow(
      'bubblewrap is not available',
    );
  });

  it.runIf(process.platform === 'linux')(
    'answers not ok, naming bwrap, where PATH has no bwrap',
    async () => {
      const empty = await tempFolder();
      await expect(bubblewrapPlatform({ path: empty }).probe()).resolves.toEqual({
        ok: false,
        reason: 'bwrap (bubblewrap) is not on PATH',
      });
    },
  );

  it.runIf(process.platform === 'linux')(
    'answers not ok, naming prlimit, where PATH has bwrap alone',
    async () => {
      const bin = await tempFolder();
      await symlink(process.execPath, join(bin, 'bwrap'));
      await expect(bubblewrapPlatform({ path: bin }).probe()).resolves.toEqual({
        ok: false,
        reason: 'prlimit (util-linux) is not on PATH',
      });
    },
  );

  it.runIf(process.platform === 'linux')(
    "answers not ok with bwrap's own first line when it cannot start a sandbox",
    async () => {
      const bin = await tempFolder();
      await writeFile(
        join(bin, 'bwrap'),
        '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\necho more >&2\nexit 1\n',
      );
      await chmod(join(bin, 'bwrap'), 0o755);
      await symlink(process.execPath, join(bin, 'prlimit'));
      await expect(bubblewrapPlatform({ path: bin }).probe()).resolves.toEqual({
        ok: false,
        reason:
          'bubblewrap could not start a sandbox here: bwrap: No permissions to create new namespace',
      });
    },
  );

  it.runIf(hasBubblewrap)(
    'answers ok where bwrap starts a sandbox, and removes its probe folder',
    async () => {
      const temp = await tempFolder();
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = temp;
      try {
        await expect(bubblewrapPlatform({ path: process.env.PATH }).probe()).resolves.toEqual({
          ok: true,
        });
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
      expect(await readdir(temp)).toEqual([]);
    },
  );

  it.runIf(hasBubblewrap && seccompProgram() !== undefined)(
    'with a work folder, writes the seccomp program (0600) and has bwrap read it from descriptor 3',
    async () => {
      const work = join(await tempFolder(), 'tmp');
      const platform = bubblewrapPlatform({ path: process.env.PATH, workDir: work });
      await expect(platform.probe()).resolves.toEqual({ ok: true });
      const file = join(work, `seccomp-${process.arch}.bpf`);
      expect(await readFile(file)).toEqual(seccompProgram());
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const wrapped = platform.wrap({ command: 'true', args: [], env: {}, cwd: '/' }, policy());
      expect(wrapped.args.slice(0, 2)).toEqual(['--seccomp', '3']);
      expect(wrapped.files).toEqual([file]);
    },
  );
});
