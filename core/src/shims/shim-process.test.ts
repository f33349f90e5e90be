import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishShim } from './publish-shim.js';

const TARGET = new URL('./fixtures/shim-target.mjs', import.meta.url);

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

async function publish(mode: string, generation = 1, env: Record<string, string> = {}) {
  return publishShim({
    binDir,
    key: 'demo',
    generation,
    entrypoint: { command: process.execPath, args: [target, mode] },
    env,
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

  it('exports the connector environment exactly as given', async () => {
    const secret = `it's "$HOME" \`id\` \\ \nline two`;
    const { path } = await publish('report', 1, { TUTTI_TEST_SECRET: secret });
    const result = run(path);
    await result.exited;
    expect(JSON.parse(result.stdout().toString()).secret).toBe(secret);
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
