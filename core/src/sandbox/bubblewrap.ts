/**
 * Linux isolation through the system's bubblewrap (`bwrap`): every namespace unshared (the
 * network kept only for `network: "host"`), a root of its own holding only the policy's
 * binds, its own /proc and /dev, a session of its own, death with the daemon's process, and
 * `no_new_privs` (bwrap sets it). bwrap is started with the server's environment alone:
 * `--clearenv` would still leave bwrap's own environment readable at /proc/1/environ
 * inside. The memory and process limits are set inside by util-linux's `prlimit`, so the
 * process count is the sandbox's own (in its user namespace), not the user's whole.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seccompProgram } from './seccomp.js';
import { findOnPath, systemSymlinks } from './server-policy.js';
import type { ProcessLaunch, SandboxPlatform, SandboxPolicy, SandboxProbe } from './types.js';

/** Longest the probe's sandboxed `true` may take. */
const PROBE_TIMEOUT_MS = 10_000;

/** Options of {@link bubblewrapPlatform}. */
export interface BubblewrapOptions {
  /** Where `bwrap` and `prlimit` are looked up (default: the daemon's PATH). */
  readonly path?: string | undefined;
  /**
   * A private folder (the daemon's home's `tmp/`) where the probe writes the seccomp
   * program (seccomp.ts) bwrap reads; without it servers run without the filter.
   */
  readonly workDir?: string | undefined;
}

/** The bwrap arguments of `policy`, before the command. */
export function bubblewrapArgs(policy: SandboxPolicy, cwd: string): string[] {
  // No `--new-session`: the supervisor starts bwrap as the leader of a session of its own
  // (setsid, no controlling terminal), so nothing inside can reach the daemon's terminal,
  // and the server stays in the group the supervisor signals.
  const args = ['--unshare-all', '--die-with-parent'];
  if (policy.network === 'host') args.push('--share-net');
  args.push('--proc', '/proc', '--dev', '/dev');
  const links = new Map(systemSymlinks().map((link) => [link.path, link.target]));
  for (const mount of policy.mounts) {
    if (mount.kind === 'hide') {
      if (mount.folder) args.push('--tmpfs', mount.path, '--remount-ro', mount.path);
      else args.push('--ro-bind', '/dev/null', mount.path);
      continue;
    }
    const link = links.get(mount.source);
    if (link !== undefined && mount.source === mount.target) {
      args.push('--symlink', link, mount.target);
      continue;
    }
    const flag = mount.writable ? '--bind' : '--ro-bind';
    args.push(mount.optional ? `${flag}-try` : flag, mount.source, mount.target);
  }
  args.push('--chdir', cwd);
  return args;
}

/** Runs `launch` to its end: undefined when it exited 0, else bwrap's first stderr line. */
function run(launch: ProcessLaunch): Promise<string | undefined> {
  return new Promise((resolve) => {
    const files = (launch.files ?? []).map((path) => openSync(path, 'r'));
    let stderr = '';
    try {
      const child = spawn(launch.command, [...launch.args], {
        env: { ...launch.env },
        cwd: launch.cwd,
        stdio: ['ignore', 'ignore', 'pipe', ...files],
        timeout: PROBE_TIMEOUT_MS,
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.once('error', (error) => resolve(error.message));
      child.once('close', (code, signal) => {
        if (code === 0) resolve(undefined);
        else resolve(stderr.trim().split('\n')[0] || `exit ${code ?? signal}`);
      });
    } finally {
      for (const fd of files) closeSync(fd);
    }
  });
}

/** `args` without a leading `--seccomp 3`. */
function withoutSeccomp(args: readonly string[]): string[] {
  return args[0] === '--seccomp' ? args.slice(2) : [...args];
}

/**
 * The bubblewrap platform: found on PATH, probed once by running `true` in a sandbox
 * like a server's (no network, limits set).
 * @example const platform = bubblewrapPlatform(); await platform.probe();
 */
export function bubblewrapPlatform(options: BubblewrapOptions = {}): SandboxPlatform {
  const path = options.path ?? process.env.PATH;
  const bwrap = findOnPath('bwrap', path);
  const prlimit = findOnPath('prlimit', path);
  /** The seccomp program's file, once the probe wrote it and the kernel took it. */
  let seccomp: string | undefined;
  const wrap = (launch: ProcessLaunch, policy: SandboxPolicy): ProcessLaunch => {
    if (!bwrap || !prlimit) throw new Error('bubblewrap is not available');
    const { memoryBytes, processes } = policy.limits;
    return {
      command: bwrap,
      args: [
        // The program is the child's descriptor 3 (the supervisor opens `files` there).
        ...(seccomp ? ['--seccomp', '3'] : []),
        ...bubblewrapArgs(policy, launch.cwd),
        '--',
        prlimit,
        `--data=${memoryBytes}:${memoryBytes}`,
        `--nproc=${processes}:${processes}`,
        '--',
        launch.command,
        ...launch.args,
      ],
      env: launch.env,
      cwd: launch.cwd,
      ...(seccomp && { files: [seccomp] }),
    };
  };
  return {
    name: 'bubblewrap',
    wrap,
    async probe(): Promise<SandboxProbe> {
      if (process.platform !== 'linux')
        return { ok: false, reason: 'bubblewrap runs on Linux only' };
      if (!bwrap) return { ok: false, reason: 'bwrap (bubblewrap) is not on PATH' };
      if (!prlimit) return { ok: false, reason: 'prlimit (util-linux) is not on PATH' };
      const program = seccompProgram();
      if (program && options.workDir) {
        await mkdir(options.workDir, { recursive: true, mode: 0o700 });
        seccomp = join(options.workDir, `seccomp-${process.arch}.bpf`);
        await writeFile(seccomp, program, { mode: 0o600 });
      }
      const folder = await mkdtemp(join(tmpdir(), 'tutti-sandbox-probe-'));
      const trial = () =>
        wrap(
          { command: 'true', args: [], env: { PATH: '/usr/bin:/bin' }, cwd: folder },
          {
            mounts: [
              ...['/usr', '/bin', '/lib', '/lib64'].map((path) => ({
                kind: 'bind' as const,
                source: path,
                target: path,
                writable: false,
                optional: true,
              })),
              { kind: 'bind', source: folder, target: folder, writable: true },
            ],
            network: 'none',
            limits: { memoryBytes: 256 * 1024 * 1024, processes: 64 },
          },
        );
      try {
        const failure = await run(trial());
        if (failure === undefined) return { ok: true };
        if (
          seccomp &&
          (await run({ ...trial(), args: withoutSeccomp(trial().args) })) === undefined
        ) {
          // The kernel refused the filter, not the sandbox: isolate without it.
          seccomp = undefined;
          return { ok: true, warning: `the seccomp filter was not taken (${failure})` };
        }
        return { ok: false, reason: `bubblewrap could not start a sandbox here: ${failure}` };
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}
