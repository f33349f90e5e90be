import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { TS_LOADER, UPSTREAM_FIXTURES as fixtures } from '@tutti/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive, signalGroup, waitForGroupExit } from './process-group.js';

interface DaemonInfo {
  pid: number;
  reaperPid: number;
  grandchild: number;
  /** A child of the upstream that left its group with setsid. */
  escaper: number;
  /** A double-forked daemon of the upstream, re-parented to the daemon (its subreaper). */
  orphan: number;
}

const started: { daemon: ChildProcess; info?: DaemonInfo }[] = [];
const homes: string[] = [];

afterEach(async () => {
  for (const { daemon, info } of started.splice(0)) {
    if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
    for (const pgid of [info?.pid, info?.reaperPid]) {
      if (pgid && isProcessGroupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
    }
    for (const pid of [info?.escaper, info?.orphan]) {
      if (pid && isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  }
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** Starts the fixture daemon and resolves with the pids it reports once its upstream runs. */
async function startDaemon(mode?: 'throw'): Promise<{ daemon: ChildProcess; info: DaemonInfo }> {
  const home = mkdtempSync(join(tmpdir(), 'tutti-daemon-'));
  homes.push(home);
  const daemon = spawn(
    process.execPath,
    [
      '-C',
      'tutti-source',
      '--import',
      TS_LOADER,
      join(fixtures, 'daemon.mjs'),
      ...(mode ? [mode] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', HOME: home } },
  );
  const entry: { daemon: ChildProcess; info?: DaemonInfo } = { daemon };
  started.push(entry);
  const info = await new Promise<DaemonInfo>((resolve, reject) => {
    let out = '';
    let err = '';
    daemon.stderr!.on('data', (chunk) => (err += chunk));
    daemon.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as DaemonInfo);
    });
    daemon.once('exit', (code) => reject(new Error(`daemon exited ${code} early: ${err}`)));
  });
  entry.info = info;
  return { daemon, info };
}

/** True while `pid` runs (a zombie waiting for PID 1 to reap it does not count). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

function exitOf(daemon: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (daemon.exitCode !== null || daemon.signalCode !== null) {
    return Promise.resolve({ code: daemon.exitCode, signal: daemon.signalCode });
  }
  return new Promise((resolve) => daemon.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('no orphans when the daemon exits', () => {
  it('reaps the upstream group and its grandchild after SIGKILL of the daemon', async () => {
    const { daemon, info } = await startDaemon();
    expect(isRunning(info.grandchild)).toBe(true);
    expect(isProcessGroupAlive(info.pid)).toBe(true);
    expect(isProcessGroupAlive(info.reaperPid)).toBe(true);
    daemon.kill('SIGKILL');
    await exitOf(daemon);
    // The reaper alone is left to notice: the upstream group (grandchild included) dies,
    // then the reaper exits too.
    expect(await waitForGroupExit(info.pid, 15_000)).toBe(true);
    expect(await waitForGroupExit(info.reaperPid, 15_000)).toBe(true);
    expect(isRunning(info.grandchild)).toBe(false);
  });

  it('ends the processes that left the upstream group too, after SIGKILL of the daemon', async () => {
    const { daemon, info } = await startDaemon();
    expect(isRunning(info.escaper)).toBe(true);
    expect(isRunning(info.orphan)).toBe(true);
    daemon.kill('SIGKILL');
    await exitOf(daemon);
    expect(await waitForGroupExit(info.reaperPid, 15_000)).toBe(true);
    expect(isRunning(info.escaper)).toBe(false);
    expect(isRunning(info.orphan)).toBe(false);
  });

  it('ends the processes that left the upstream group on SIGTERM of the daemon', async () => {
    const { daemon, info } = await startDaemon();
    daemon.kill('SIGTERM');
    expect((await exitOf(daemon)).code).toBe(143);
    expect(isRunning(info.escaper)).toBe(false);
    expect(isRunning(info.orphan)).toBe(false);
  });

  it('stops the upstream group before exiting on SIGTERM', async () => {
    const { daemon, info } = await startDaemon();
    daemon.kill('SIGTERM');
    const exit = await exitOf(daemon);
    expect(exit.code).toBe(143);
    // The graceful path waited for the group before exiting: nothing is left right away.
    expect(isProcessGroupAlive(info.pid)).toBe(false);
    expect(await waitForGroupExit(info.reaperPid, 15_000)).toBe(true);
  });

  it('stops the upstream group on SIGINT', async () => {
    const { daemon, info } = await startDaemon();
    daemon.kill('SIGINT');
    expect((await exitOf(daemon)).code).toBe(130);
    expect(isProcessGroupAlive(info.pid)).toBe(false);
  });

  it('leaves nothing running after an uncaught error in the daemon', async () => {
    const { daemon, info } = await startDaemon('throw');
    expect((await exitOf(daemon)).code).toBe(1);
    expect(await waitForGroupExit(info.pid, 15_000)).toBe(true);
    expect(await waitForGroupExit(info.reaperPid, 15_000)).toBe(true);
  });
});
