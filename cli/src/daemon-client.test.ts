import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { daemonInfoPath, readDaemonInfo } from './daemon-client.js';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'tutti-daemon-info-'));
  await mkdir(join(home, 'run'));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

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
