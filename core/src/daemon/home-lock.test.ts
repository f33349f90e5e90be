import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, TS_LOADER as LOADER, tempDir } from '@tutti/test-kit';
import { isTuttiError } from '../errors/index.js';
import { acquireHomeLock, homeLockHolder, homeLockPath } from './home-lock.js';

const LOCK_MODULE = fileURLToPath(new URL('./home-lock.ts', import.meta.url));

const children: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }),
  );
  await cleanUp();
});

/** A separate node process that takes the lock of `home` and holds it until killed. */
async function holdInChild(home: string): Promise<ChildProcess> {
  const script = `const { acquireHomeLock } = await import(${JSON.stringify(LOCK_MODULE)});
acquireHomeLock(${JSON.stringify(home)}); console.log('locked'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', LOADER, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'locked') resolve();
    });
    child.once('exit', (code) => reject(new Error(`lock holder exited (${code})`)));
  });
  return child;
}

function refusal(home: string): unknown {
  try {
    acquireHomeLock(home).release();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the home lock', () => {
  it('refuses a second holder in the same process until the first releases it', async () => {
    const home = await tempDir('tutti-lock-');
    const first = acquireHomeLock(home);
    expect(first.held).toBe(true);
    const error = refusal(home);
    expect(isTuttiError(error, 'TUTTI_ERR_DAEMON_ALREADY_RUNNING')).toBe(true);
    expect((error as Error).message).toContain(`pid ${process.pid}`);
    first.release();
    expect(refusal(home)).toBeUndefined();
  });

  it('names the holding process to clients and forgets it once released', async () => {
    const home = await tempDir('tutti-lock-');
    expect(homeLockHolder(home)).toBeUndefined();
    const lock = acquireHomeLock(home);
    expect(homeLockHolder(home)).toBe(process.pid);
    expect((await readFile(homeLockPath(home), 'utf8')).trim()).toBe(String(process.pid));
    lock.release();
    expect(homeLockHolder(home)).toBeUndefined();
  });

  it('is held against another process, and free again once that process is killed with SIGKILL', async () => {
    const home = await tempDir('tutti-lock-');
    const holder = await holdInChild(home);
    expect(homeLockHolder(home)).toBe(holder.pid);
    const error = refusal(home);
    expect(isTuttiError(error, 'TUTTI_ERR_DAEMON_ALREADY_RUNNING')).toBe(true);
    expect((error as Error).message).toContain(`pid ${holder.pid}`);

    const gone = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await gone;
    // The dead holder's pid is still in the file: a stale lock, which blocks nothing.
    expect((await readFile(homeLockPath(home), 'utf8')).trim()).toBe(String(holder.pid));
    expect(homeLockHolder(home)).toBeUndefined();
    const lock = acquireHomeLock(home);
    expect(lock.held).toBe(true);
    lock.release();
  });
});
