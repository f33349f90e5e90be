import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SHIM_TARGET as TARGET } from '@tutti/test-kit';
import { publishShim } from './publish-shim.js';
import { SHIM_NO_CREDENTIAL_EXIT, type ShimCredential } from './shim-script.js';

interface Run {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout: () => Buffer;
  stderr: () => Buffer;
  /** Resolves once stdout contains `text`. */
  waitFor: (text: string) => Promise<void>;
}

const children = new Set<ChildProcess>();

function run(path: string, args: string[] = []): Run {
  const child = spawn(path, args, { stdio: 'pipe' });
  children.add(child);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    out.push(chunk);
    const text = Buffer.concat(out).toString();
    for (const waiter of waiters.filter((w) => text.includes(w.text))) waiter.resolve();
  });
  child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    stdout: () => Buffer.concat(out),
    stderr: () => Buffer.concat(err),
    waitFor: (text) =>
      new Promise((resolve) => {
        if (Buffer.concat(out).toString().includes(text)) resolve();
        else waiters.push({ text, resolve });
      }),
  };
}

let dir: string;
let binDir: string;
let target: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tutti shim '));
  binDir = join(dir, 'state dir', 'bin');
  const release = join(dir, "release 1 it's", 'bin');
  await mkdir(release, { recursive: true });
  target = join(release, 'target ü.mjs');
  await copyFile(TARGET, target);
});

afterEach(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
  await rm(dir, { recursive: true, force: true });
});

async function publish(mode: string, generation = 1, credential?: ShimCredential) {
  return publishShim({
    binDir,
    key: 'demo',
    generation,
    entrypoint: { command: process.execPath, args: [target, mode] },
    ...(credential && { credential }),
  });
}

describe('a published shim run as a real process', () => {
  it('passes every argument through unchanged and execs in place', async () => {
    const { path } = await publish('report');
    const args = [
      '',
      'with space',
      "it's",
      '"double"',
      'ünïcødé €',
      '$HOME',
      '*',
      '--a=b c',
      'x\ny',
    ];
    const result = run(path, args);
    expect(await result.exited).toEqual({ code: 0, signal: null });
    const report = JSON.parse(result.stdout().toString());
    expect(report.argv).toEqual(args);
    expect(report.pid).toBe(result.child.pid);
  });

  it('reads the credential from its file at every run, and refuses to run without it', async () => {
    const file = join(dir, 'credentials', 'demo.secret');
    await mkdir(join(dir, 'credentials'));
    const { path } = await publish('report', 1, { env: 'TUTTI_TEST_SECRET', file });
    const shimText = await readFile(path, 'utf8');
    const first = `it's "$HOME" \`id\` \\ $(echo no) %PATH% ü`;
    await writeFile(file, `${first}\n`, { mode: 0o600 });
    const one = run(path);
    expect(await one.exited).toEqual({ code: 0, signal: null });
    expect(JSON.parse(one.stdout().toString()).secret).toBe(first);
    // A changed credential reaches the very next run; the shim itself never changed.
    await writeFile(file, 'second-value\n', { mode: 0o600 });
    const two = run(path);
    await two.exited;
    expect(JSON.parse(two.stdout().toString()).secret).toBe('second-value');
    expect(await readFile(path, 'utf8')).toBe(shimText);
    expect(shimText).not.toContain('second-value');
    await rm(file);
    const three = run(path);
    expect(await three.exited).toEqual({ code: SHIM_NO_CREDENTIAL_EXIT, signal: null });
    expect(three.stdout().length).toBe(0);
    expect(three.stderr().toString()).toContain('connector "demo" has no credential');
  });

  it('never runs a command from the working folder through a relative PATH entry', async () => {
    const trusted = join(dir, 'trusted-bin');
    const work = join(dir, 'work');
    await mkdir(trusted);
    await mkdir(join(work, 'bin'), { recursive: true });
    const fake = (label: string) => `#!/bin/sh\necho ${label}\n`;
    for (const place of [join(work, 'tutti-probe'), join(work, 'bin', 'tutti-probe')]) {
      await writeFile(place, fake('from-the-working-folder'));
      await chmod(place, 0o755);
    }
    await writeFile(join(trusted, 'tutti-probe'), fake('trusted'));
    await chmod(join(trusted, 'tutti-probe'), 0o755);
    const { path } = await publishShim({
      binDir,
      key: 'probe',
      generation: 1,
      entrypoint: { command: 'tutti-probe', args: [] },
    });
    const child = spawn(path, [], {
      cwd: work,
      stdio: 'pipe',
      env: { PATH: `.:bin::${trusted}:/usr/bin:/bin` },
    });
    children.add(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out).toBe('trusted\n');
  });

  it('runs the whole old or the whole new shim while it is being replaced, never a torn one', async () => {
    const entry = (generation: number) => ({
      command: '/bin/sh',
      // A long script body makes a torn write visible: the label is printed at its end.
      args: ['-c', `${': padding;'.repeat(400)} echo gen-${generation}`],
    });
    await publishShim({ binDir, key: 'swap', generation: 1, entrypoint: entry(1) });
    const path = join(binDir, 'tutti-connector-swap');
    let generation = 1;
    let stop = false;
    const writer = (async () => {
      while (!stop) {
        generation += 1;
        await publishShim({ binDir, key: 'swap', generation, entrypoint: entry(generation) });
      }
    })();
    const outcomes: string[] = [];
    for (let i = 0; i < 150; i++) {
      const result = run(path);
      const exit = await result.exited;
      outcomes.push(exit.code === 0 ? result.stdout().toString() : `exit ${exit.code}`);
    }
    stop = true;
    await writer;
    expect(generation).toBeGreaterThan(2);
    const torn = outcomes.filter((outcome) => !/^gen-\d+\n$/.test(outcome));
    expect(torn).toEqual([]);
  });

  it('carries stdin to the target and its stdout and stderr back byte for byte', async () => {
    const { path } = await publish('echo');
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0x41, 0xe2, 0x82, 0xac]);
    const result = run(path, ['7']);
    result.child.stdin!.end(bytes);
    expect(await result.exited).toEqual({ code: 7, signal: null });
    expect(result.stdout().equals(bytes)).toBe(true);
    expect(result.stderr().equals(bytes)).toBe(true);
  });

  it.each([0, 1, 42])('returns the target exit code %i', async (code) => {
    const { path } = await publish('exit');
    expect(await run(path, [String(code)]).exited).toEqual({ code, signal: null });
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('delivers %s to the target and returns its exit status', async (signal, code) => {
    const { path } = await publish('signals');
    const result = run(path);
    await result.waitFor(`ready ${result.child.pid}`);
    result.child.kill(signal);
    expect(await result.exited).toEqual({ code, signal: null });
    expect(result.stdout().toString()).toContain(`got ${signal}`);
  });

  it('reports the signal that killed a target without a handler', async () => {
    const { path } = await publish('wait');
    const result = run(path, ['x']);
    await result.waitFor('ready x');
    result.child.kill('SIGTERM');
    expect(await result.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('lets a run of the old generation finish while the new generation takes over', async () => {
    await publishShim({
      binDir,
      key: 'demo',
      generation: 1,
      entrypoint: { command: process.execPath, args: [target, 'wait', 'gen-1'] },
    });
    const old = run(join(binDir, 'tutti-connector-demo'));
    await old.waitFor('ready gen-1');
    const { path } = await publishShim({
      binDir,
      key: 'demo',
      generation: 2,
      entrypoint: { command: process.execPath, args: [target, 'wait', 'gen-2'] },
    });
    const fresh = run(path);
    await fresh.waitFor('ready gen-2');
    fresh.child.stdin!.end();
    old.child.stdin!.end();
    expect(await old.exited).toEqual({ code: 0, signal: null });
    expect(await fresh.exited).toEqual({ code: 0, signal: null });
    expect(old.stdout().toString()).toBe('ready gen-1\ndone gen-1\n');
    expect(fresh.stdout().toString()).toBe('ready gen-2\ndone gen-2\n');
  });
});
