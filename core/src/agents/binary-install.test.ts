import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cleanUp, type TarEntry, tarGz, tempDir } from '@tutti/test-kit';
import { type FileServer, startFileServer } from '@tutti/test-kit/file-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgentInstaller } from './agent-installer.js';

const run = promisify(execFile);
const PLATFORM = 'linux-x86_64';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const AGENT_SCRIPT = '#!/bin/sh\necho "agent $* $GREETING"\n';
const goodEntries: TarEntry[] = [
  { path: 'tiny/', type: 'dir' },
  { path: 'tiny/agent', content: AGENT_SCRIPT, mode: 0o644 },
  { path: 'tiny/README', content: 'a tiny agent\n' },
];

let files: FileServer;
beforeAll(async () => {
  files = await startFileServer();
});
afterAll(() => files.close());
afterEach(cleanUp);

function binaryEntry(archive: string, sha: string | undefined, id = 'tiny-agent') {
  return {
    id,
    name: 'Tiny agent',
    version: '1.0.0',
    description: 'A shell script that says hello.',
    distribution: {
      binary: {
        [PLATFORM]: {
          archive,
          ...(sha !== undefined ? { sha256: sha } : {}),
          cmd: './tiny/agent',
          args: ['--acp'],
          env: { GREETING: 'hello' },
        },
      },
    },
  };
}

/** Serves `tgz` at `path` and answers its entry. */
function served(path: string, tgz: Buffer, sha = sha256(tgz)) {
  files.set(path, tgz);
  return binaryEntry(`${files.url}${path}`, sha);
}

async function installer() {
  const home = await tempDir('tutti-agents-');
  return { home, installer: createAgentInstaller({ home, platform: PLATFORM }) };
}

async function refusedLeavingNothing(entry: unknown, code: string, detail?: RegExp) {
  const { home, installer: agents } = await installer();
  const error = await agents.install({ entry }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toMatchObject({
    code,
    ...(detail ? { message: expect.stringMatching(detail) } : {}),
  });
  expect(existsSync(join(home, 'agents', 'tiny-agent'))).toBe(false);
  return error as Error;
}

describe('binary entries', () => {
  it('installs a verified archive and records a runnable command with the entry args and env', async () => {
    const { home, installer: agents } = await installer();
    const agent = await agents.install({ entry: served('/good.tar.gz', tarGz(goodEntries)) });
    const dir = join(home, 'agents', 'tiny-agent');
    expect(agent).toMatchObject({
      id: 'tiny-agent',
      version: '1.0.0',
      source: 'registry',
      dir,
      run: {
        command: join(dir, '1.0.0', 'tiny', 'agent'),
        args: ['--acp'],
        env: { GREETING: 'hello' },
      },
    });
    const { stdout } = await run(agent.run!.command, [...agent.run!.args], {
      env: { ...process.env, ...agent.run!.env },
    });
    expect(stdout.trim()).toBe('agent --acp hello');
    expect((await stat(join(dir, 'installed.json'))).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).sort()).toEqual(['1.0.0', 'installed.json']);
    const [listing] = await agents.list();
    expect(listing).toMatchObject({ id: 'tiny-agent', source: 'registry', version: '1.0.0' });
    expect(listing!.sizeBytes).toBeGreaterThan(AGENT_SCRIPT.length);
  });

  it('installs a raw program download as the command', async () => {
    const { installer: agents } = await installer();
    const program = Buffer.from(AGENT_SCRIPT);
    files.set('/tiny-agent', program);
    const entry = binaryEntry(`${files.url}/tiny-agent`, sha256(program));
    (entry.distribution.binary[PLATFORM] as { cmd: string }).cmd = './tiny-agent';
    const agent = await agents.install({ entry });
    const { stdout } = await run(agent.run!.command, ['x'], {
      env: { ...process.env, GREETING: 'hi' },
    });
    expect(stdout.trim()).toBe('agent x hi');
  });

  it('refuses a binary without a sha256, leaving no files', async () => {
    files.set('/nosha.tar.gz', tarGz(goodEntries));
    const entry = binaryEntry(`${files.url}/nosha.tar.gz`, undefined);
    await refusedLeavingNothing(entry, 'TUTTI_ERR_AGENT_CHECKSUM_MISSING', /add "sha256"/);
    expect(files.requests).not.toContain('/nosha.tar.gz');
  });

  it('refuses a download whose sha256 differs, leaving no files', async () => {
    const entry = served('/changed.tar.gz', tarGz(goodEntries), 'b'.repeat(64));
    await refusedLeavingNothing(entry, 'TUTTI_ERR_AGENT_CHECKSUM_MISMATCH', /expected b{64}/);
  });

  it.each<[string, TarEntry, RegExp]>([
    [
      'a traversal',
      { path: 'tiny/../../escape', content: 'x' },
      /"tiny\/..\/..\/escape" leaves the folder/,
    ],
    [
      'an absolute path',
      { path: '/etc/tutti-x', content: 'x' },
      /"\/etc\/tutti-x" has an absolute path/,
    ],
    ['a symlink', { path: 'tiny/link', type: 'symlink', linkpath: '/etc/passwd' }, /symbolic link/],
    ['a hardlink', { path: 'tiny/hard', type: 'link', linkpath: 'tiny/agent' }, /hard link/],
    ['a fifo', { path: 'tiny/pipe', type: 'fifo' }, /FIFO, not a regular file/],
    [
      'a file named twice',
      { path: './tiny/README', content: 'replaced\n' },
      /"\.\/tiny\/README" names the path "tiny\/README" a second time/,
    ],
    [
      'a file under an earlier file',
      { path: 'tiny/agent/x', content: 'x' },
      /"tiny\/agent\/x" lies under "tiny\/agent", an earlier file/,
    ],
    [
      'a folder over an earlier file',
      { path: 'tiny/README/', type: 'dir' },
      /names the path "tiny\/README" a second time/,
    ],
  ])('refuses an archive holding %s, leaving no files', async (_name, hostile, reason) => {
    const tgz = tarGz([...goodEntries, hostile]);
    const error = await refusedLeavingNothing(
      served(`/hostile-${sha256(tgz).slice(0, 8)}.tar.gz`, tgz),
      'TUTTI_ERR_AGENT_ARCHIVE_UNSAFE',
      reason,
    );
    expect(error.message).toContain('nothing was extracted');
  });

  it('refuses plain http to another host and other schemes, before downloading', async () => {
    const sha = 'c'.repeat(64);
    await refusedLeavingNothing(
      binaryEntry('http://example.test/a.tar.gz', sha),
      'TUTTI_ERR_AGENT_DOWNLOAD_FAILED',
      /plain http is allowed only to this machine/,
    );
    await refusedLeavingNothing(
      binaryEntry('file:///etc/passwd', sha),
      'TUTTI_ERR_AGENT_DOWNLOAD_FAILED',
      /scheme file: is not allowed/,
    );
  });

  it('refuses a .zip with a message that says why', async () => {
    await refusedLeavingNothing(
      binaryEntry(`${files.url}/agent.zip`, 'd'.repeat(64)),
      'TUTTI_ERR_AGENT_INSTALL_FAILED',
      /\.zip, which tutti does not extract/,
    );
  });

  it('refuses a command outside the archive', async () => {
    const entry = served('/outside.tar.gz', tarGz(goodEntries));
    (entry.distribution.binary[PLATFORM] as { cmd: string }).cmd = '../../../bin/sh';
    await refusedLeavingNothing(
      entry,
      'TUTTI_ERR_AGENT_INSTALL_FAILED',
      /lies outside the installed files/,
    );
  });

  it('refuses a uvx entry when uv is not on PATH', async () => {
    const home = await tempDir('tutti-agents-');
    const agents = createAgentInstaller({ home, platform: PLATFORM, env: { PATH: home } });
    const entry = {
      ...binaryEntry('https://example.test/x.tar.gz', undefined),
      distribution: { uvx: { package: 'fast-agent-mcp==0.4.2' } },
    };
    await expect(agents.install({ entry })).rejects.toMatchObject({
      code: 'TUTTI_ERR_AGENT_UV_MISSING',
    });
    expect(existsSync(join(home, 'agents', 'tiny-agent'))).toBe(false);
  });
});
