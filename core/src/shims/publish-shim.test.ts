import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { publishedGeneration, publishShim, removeShim } from './publish-shim.js';
import { shQuote } from './shell-quote.js';

let binDir: string;

beforeEach(async () => {
  binDir = join(await mkdtemp(join(tmpdir(), 'tutti-shim-')), 'bin');
});

afterEach(async () => {
  await rm(join(binDir, '..'), { recursive: true, force: true });
});

const entrypoint = (name: string) => ({
  command: `/releases/${name}/bin/cli`,
  args: ['--from', name],
});

function publish(generation: number, windows = false) {
  return publishShim({
    binDir,
    key: 'demo',
    generation,
    entrypoint: entrypoint(`g${generation}`),
    windows,
  });
}

describe('publishShim', () => {
  it('writes an executable 0700 sh script that execs the entrypoint with the caller arguments', async () => {
    const shim = await publish(3);
    expect(shim).toEqual({
      command: 'tutti-connector-demo',
      path: join(binDir, 'tutti-connector-demo'),
      generation: 3,
    });
    expect((await stat(shim.path)).mode & 0o777).toBe(0o700);
    const text = await readFile(shim.path, 'utf8');
    expect(text.startsWith('#!/bin/sh\n# tutti-generation: 3\n')).toBe(true);
    expect(text).toContain(`exec '/releases/g3/bin/cli' '--from' 'g3' "$@"\n`);
  });

  it('leaves no temporary files behind', async () => {
    await publish(1, true);
    await publish(2, true);
    expect((await readdir(binDir)).sort()).toEqual([
      'tutti-connector-demo',
      'tutti-connector-demo.cmd',
    ]);
  });

  it('replaces generation N with N+1 and refuses to go back to N', async () => {
    await publish(1);
    await publish(2);
    expect(await publishedGeneration(binDir, 'demo')).toBe(2);
    const refused = await publish(1).catch((error: unknown) => error);
    expect(isTuttiError(refused, 'TUTTI_ERR_SHIM_STALE_GENERATION')).toBe(true);
    expect(await readFile(join(binDir, 'tutti-connector-demo'), 'utf8')).toContain('/releases/g2/');
  });

  it('publishes the same generation again idempotently', async () => {
    await publish(4);
    await publish(4);
    expect(await publishedGeneration(binDir, 'demo')).toBe(4);
  });

  it('writes a .cmd twin carrying the same generation when asked for Windows', async () => {
    await publish(5, true);
    const cmd = await readFile(join(binDir, 'tutti-connector-demo.cmd'), 'utf8');
    expect(cmd.split('\r\n').slice(0, 2)).toEqual(['@echo off', 'rem tutti-generation: 5']);
    expect(cmd).toContain('"/releases/g5/bin/cli" "--from" "g5" %*');
  });

  it('refuses an invalid key, generation, credential variable name or a NUL byte', async () => {
    const base = { binDir, key: 'demo', generation: 1, entrypoint: entrypoint('x') };
    const attempts = [
      publishShim({ ...base, key: 'Bad_Key' }),
      publishShim({ ...base, generation: 0 }),
      publishShim({ ...base, credential: { env: 'NOT-A-NAME', file: '/c/demo.secret' } }),
      publishShim({ ...base, entrypoint: { command: '/bin/x', args: ['a\0b'] } }),
      publishShim({ ...base, windows: true, credential: { env: 'K', file: '/c/a\nb' } }),
    ];
    const codes = (await Promise.allSettled(attempts)).map((outcome) =>
      outcome.status === 'rejected' && isTuttiError(outcome.reason) ? outcome.reason.code : 'ok',
    );
    expect(codes).toEqual([
      'TUTTI_ERR_REGISTRY_INVALID_KEY',
      'TUTTI_ERR_SHIM_INVALID_INPUT',
      'TUTTI_ERR_SHIM_INVALID_INPUT',
      'TUTTI_ERR_SHIM_INVALID_INPUT',
      'TUTTI_ERR_SHIM_INVALID_INPUT',
    ]);
    expect(existsSync(binDir)).toBe(false);
  });

  it('names the credential file in the shim, never a value', async () => {
    const file = join(binDir, '..', 'credentials', 'demo.secret');
    await publishShim({
      binDir,
      key: 'demo',
      generation: 1,
      entrypoint: entrypoint('x'),
      windows: true,
      credential: { env: 'DEMO_API_KEY', file },
    });
    const sh = await readFile(join(binDir, 'tutti-connector-demo'), 'utf8');
    const cmd = await readFile(join(binDir, 'tutti-connector-demo.cmd'), 'utf8');
    expect(sh).toContain(`IFS= read -r DEMO_API_KEY < ${shQuote(file)}`);
    expect(cmd).toContain(`set /p "DEMO_API_KEY=" < "${file}"`);
    expect(cmd).toContain('set "NoDefaultCurrentDirectoryInExePath=1"');
  });

  it('runs the keychain reader with absolute quoted paths in place of a file, in sh and cmd', async () => {
    const reader = {
      command: '/opt/node 20/bin/node',
      args: ["/opt/tutti's core/read-secret-cli.js", '/home/a %TEMP% b', 'demo'],
    };
    await publishShim({
      binDir,
      key: 'demo',
      generation: 1,
      entrypoint: entrypoint('x'),
      windows: true,
      credential: { env: 'DEMO_API_KEY', ...reader },
    });
    const sh = await readFile(join(binDir, 'tutti-connector-demo'), 'utf8');
    const cmd = await readFile(join(binDir, 'tutti-connector-demo.cmd'), 'utf8');
    const quoted = [reader.command, ...reader.args].map(shQuote).join(' ');
    expect(sh).toContain(`if ! DEMO_API_KEY=$(${quoted}); then exit 78; fi`);
    expect(sh).not.toContain('read -r');
    // Relative PATH entries are still dropped before anything runs.
    expect(sh.indexOf('PATH=$tutti_path')).toBeLessThan(sh.indexOf('DEMO_API_KEY=$('));
    expect(cmd).toContain(
      'for /f "usebackq delims=" %%L in (`""/opt/node 20/bin/node" "/opt/tutti\'s core/read-secret-cli.js" "/home/a %%TEMP%% b" "demo""`) do set "DEMO_API_KEY=%%L"',
    );
    expect(cmd).toContain('if not defined DEMO_API_KEY (');
    const refused = await publishShim({
      binDir,
      key: 'demo',
      generation: 2,
      entrypoint: entrypoint('x'),
      windows: true,
      credential: { env: 'DEMO_API_KEY', command: '/bin/node', args: ['a\nb'] },
    }).catch((error: unknown) => error);
    expect(isTuttiError(refused) && refused.code).toBe('TUTTI_ERR_SHIM_INVALID_INPUT');
  });
});

describe('removeShim', () => {
  it('does not delete a newer generation when removing by the old one', async () => {
    await publish(1, true);
    await publish(2, true);
    expect(await removeShim({ binDir, key: 'demo', generation: 1 })).toBe(false);
    expect(await publishedGeneration(binDir, 'demo')).toBe(2);
    expect(await removeShim({ binDir, key: 'demo', generation: 2 })).toBe(true);
    expect(await readdir(binDir)).toEqual([]);
  });

  it('ends with the new shim in place when an upgrade races an uninstall of the old one', async () => {
    await publish(1);
    for (let generation = 2; generation < 12; generation += 1) {
      const racers =
        generation % 2 === 0
          ? [publish(generation), removeShim({ binDir, key: 'demo', generation: generation - 1 })]
          : [removeShim({ binDir, key: 'demo', generation: generation - 1 }), publish(generation)];
      await Promise.all(racers);
      expect(await publishedGeneration(binDir, 'demo')).toBe(generation);
    }
  });

  it('answers false when nothing is published', async () => {
    expect(await removeShim({ binDir, key: 'demo', generation: 1 })).toBe(false);
  });
});

describe('shQuote', () => {
  it('round-trips any string without NUL through a real sh', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }).filter((value) => !value.includes('\0')),
        (value) => {
          const printed = execFileSync('/bin/sh', ['-c', `printf '%s' ${shQuote(value)}`]);
          expect(printed.toString('utf8')).toBe(value);
        },
      ),
      { numRuns: 60 },
    );
  });
});
