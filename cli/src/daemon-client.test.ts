import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isTuttiError } from '@tutti/core/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TS_LOADER as LOADER } from '@tutti/test-kit';
import { daemonInfoPath, fetchAvailableConnectors, readDaemonInfo } from './daemon-client.js';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'tutti-daemon-info-'));
  await mkdir(join(home, 'run'));
});

const holders: ChildProcess[] = [];

afterEach(async () => {
  for (const holder of holders.splice(0)) {
    const gone = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await gone;
  }
  await rm(home, { recursive: true, force: true });
});

/** A process that holds the home's lock, as a daemon does from its first moment. */
async function lockHolder(): Promise<ChildProcess> {
  const script = `const { acquireHomeLock } = await import('@tutti/core/internal');
acquireHomeLock(${JSON.stringify(home)}); console.log('locked'); setInterval(() => {}, 1000);`;
  const child = spawn(
    process.execPath,
    ['-C', 'tutti-source', '--import', LOADER, '--input-type=module', '-e', script],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  holders.push(child);
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'locked') resolve();
    });
    child.once('exit', (code) => reject(new Error(`lock holder exited (${code})`)));
  });
  return child;
}

const valid = { pid: process.pid, controlUrl: 'http://127.0.0.1:4123', controlToken: 't0k' };

describe('readDaemonInfo', () => {
  it('reads the pid, control URL and token of a live daemon from run/daemon.json', async () => {
    await writeFile(daemonInfoPath(home), JSON.stringify(valid));
    expect(await readDaemonInfo(home)).toEqual(valid);
  });

  it.each([
    ['not JSON', '{pid:'],
    ['no token', JSON.stringify({ ...valid, controlToken: '' })],
    ['a pid that is not a number', JSON.stringify({ ...valid, pid: '1' })],
    ['a remote control URL', JSON.stringify({ ...valid, controlUrl: 'http://10.0.0.2:4123' })],
    [
      'a look-alike loopback host',
      JSON.stringify({ ...valid, controlUrl: 'http://127.0.0.1.evil.io' }),
    ],
  ])('treats a daemon file with %s as no daemon', async (_what, text) => {
    await writeFile(daemonInfoPath(home), text);
    expect(await readDaemonInfo(home)).toBeUndefined();
  });

  it('treats a missing daemon file as no daemon', async () => {
    expect(await readDaemonInfo(join(home, 'nowhere'))).toBeUndefined();
  });
});

describe('fetchAvailableConnectors', () => {
  it('says no daemon runs when nothing holds the home', async () => {
    const error = await fetchAvailableConnectors(home).catch((e: unknown) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_CLI_DAEMON_NOT_RUNNING')).toBe(true);
  });

  it('tells a daemon that holds the home but does not answer yet from a missing one', async () => {
    const holder = await lockHolder();
    const error = await fetchAvailableConnectors(home).catch((e: unknown) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_CLI_DAEMON_STARTING')).toBe(true);
    expect((error as Error).message).toContain(`pid ${holder.pid}`);
  });
});
