import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cleanUp, tempDir } from '@tutti/test-kit';
import { type FileServer, startFileServer } from '@tutti/test-kit/file-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InstalledAgentsChange } from '../contracts/installed-agents.js';
import { TuttiError } from '../errors/index.js';
import { createAgentInstaller } from './agent-installer.js';
import { sizeOnDisk } from './agent-records.js';

const run = promisify(execFile);
const PLATFORM = 'linux-x86_64';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let files: FileServer;
beforeAll(async () => {
  files = await startFileServer();
});
afterAll(() => files.close());
afterEach(cleanUp);

/** An entry of `tx-agent` at `version` whose program prints the version. */
function entryOf(version: string) {
  const program = Buffer.from(`#!/bin/sh\necho ${version}\n`);
  files.set(`/tx-agent-${version}`, program);
  return {
    id: 'tx-agent',
    name: `Transaction agent ${version}`,
    version,
    description: 'Prints its version.',
    distribution: {
      binary: {
        [PLATFORM]: {
          archive: `${files.url}/tx-agent-${version}`,
          sha256: sha256(program),
          cmd: './tx-agent',
        },
      },
    },
  };
}

async function setup() {
  const home = await tempDir('tutti-tx-');
  const agents = createAgentInstaller({ home, platform: PLATFORM });
  return { home, agents, dir: join(home, 'agents', 'tx-agent') };
}

const output = async (command: string) => (await run(command, [])).stdout.trim();

describe('the install transaction', () => {
  it('tells listeners of each install and removal, in order', async () => {
    const { agents } = await setup();
    const seen: string[] = [];
    const stop = agents.feed.subscribe((change) => {
      seen.push(
        change.kind === 'installed' ? `installed ${change.agent.version}` : `removed ${change.id}`,
      );
    });
    await agents.install({ entry: entryOf('1.0.0') });
    await agents.remove('tx-agent');
    stop();
    await agents.install({ entry: entryOf('1.0.0') });
    expect(seen).toEqual(['installed 1.0.0', 'removed tx-agent']);
    expect((await agents.feed.list()).map((agent) => agent.id)).toEqual(['tx-agent']);
  });

  it('removes the older version files once the newer one is in', async () => {
    const { agents, dir } = await setup();
    await agents.install({ entry: entryOf('1.0.0') });
    const newer = await agents.install({ entry: entryOf('1.1.0') });
    expect((await readdir(dir)).sort()).toEqual(['1.1.0', 'installed.json']);
    expect(await output(newer.run!.command)).toBe('1.1.0');
  });

  it('lists each install at its own size on disk, measured again after an upgrade', async () => {
    const { agents, dir } = await setup();
    await agents.install({ entry: entryOf('1.0.0') });
    const [first] = await agents.list();
    expect(first?.sizeBytes).toBe(await sizeOnDisk(dir));
    // A bigger program in the next version: the listing follows it.
    const entry = entryOf('2.0.0');
    const program = Buffer.from(`#!/bin/sh\n# ${'x'.repeat(5000)}\necho 2.0.0\n`);
    files.set('/tx-agent-2.0.0', program);
    entry.distribution.binary[PLATFORM]!.sha256 = sha256(program);
    await agents.install({ entry });
    const [second] = await agents.list();
    expect(second?.sizeBytes).toBe(await sizeOnDisk(dir));
    expect(second!.sizeBytes).toBeGreaterThan(first!.sizeBytes);
  });

  it('undoes an install a listener refuses, keeping the old version, and answers its error', async () => {
    const { agents, dir } = await setup();
    const old = await agents.install({ entry: entryOf('1.0.0') });
    const seen: InstalledAgentsChange[] = [];
    agents.feed.subscribe((change) => {
      seen.push(change);
      if (change.kind === 'installed' && change.agent.version === '2.0.0') {
        throw new Error('the descriptor cannot be used');
      }
    });
    await expect(agents.install({ entry: entryOf('2.0.0') })).rejects.toThrow(
      'the descriptor cannot be used',
    );
    expect((await readdir(dir)).sort()).toEqual(['1.0.0', 'installed.json']);
    expect(await output(old.run!.command)).toBe('1.0.0');
    expect(await agents.feed.list()).toEqual([old]);
    expect(
      seen.map((change) => (change.kind === 'installed' ? change.agent.version : change.kind)),
    ).toEqual(['2.0.0', '1.0.0']);
  });

  it('undoes a first install a listener refuses, leaving no files', async () => {
    const { agents, dir } = await setup();
    const kinds: string[] = [];
    agents.feed.subscribe((change) => {
      kinds.push(change.kind);
      if (change.kind === 'installed') throw new Error('no');
    });
    await expect(agents.install({ entry: entryOf('1.0.0') })).rejects.toThrow('no');
    expect(existsSync(dir)).toBe(false);
    expect(kinds).toEqual(['installed', 'removed']);
  });

  it('keeps the same version in place when its reinstall is refused', async () => {
    const { agents } = await setup();
    const first = await agents.install({ entry: entryOf('1.0.0') });
    const stop = agents.feed.subscribe(() => {
      throw new Error('refused');
    });
    await expect(agents.install({ entry: entryOf('1.0.0') })).rejects.toThrow('refused');
    stop();
    expect(await output(first.run!.command)).toBe('1.0.0');
    expect(await agents.feed.list()).toEqual([first]);
  });

  it('refuses a second install or a removal of the same agent while one runs', async () => {
    const { agents } = await setup();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const atListener = new Promise<void>((resolve) => {
      reached = resolve;
    });
    agents.feed.subscribe(async () => {
      reached();
      await held;
    });
    const first = agents.install({ entry: entryOf('1.0.0') });
    await atListener;
    await expect(agents.install({ entry: entryOf('1.1.0') })).rejects.toMatchObject({
      code: 'TUTTI_ERR_AGENT_BUSY',
    });
    await expect(agents.remove('tx-agent')).rejects.toMatchObject({ code: 'TUTTI_ERR_AGENT_BUSY' });
    release();
    await expect(first).resolves.toMatchObject({ version: '1.0.0' });
  });

  it('removes an agent folder but not the user descriptor beside it', async () => {
    const { home, agents, dir } = await setup();
    await agents.install({ entry: entryOf('1.0.0') });
    await writeFile(join(home, 'agents', 'tx-agent.json'), '{}');
    await agents.remove('tx-agent');
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(join(home, 'agents', 'tx-agent.json'))).toBe(true);
    await expect(agents.remove('tx-agent')).rejects.toMatchObject({
      code: 'TUTTI_ERR_AGENT_NOT_INSTALLED',
    });
    expect(await agents.list()).toEqual([]);
  });

  it('keeps an agent whose removal a listener refuses', async () => {
    const { agents, dir } = await setup();
    await agents.install({ entry: entryOf('1.0.0') });
    agents.feed.subscribe((change) => {
      if (change.kind === 'removed') throw new Error('sessions run');
    });
    await expect(agents.remove('tx-agent')).rejects.toThrow('sessions run');
    expect(existsSync(join(dir, 'installed.json'))).toBe(true);
  });

  it('refuses at commit an upgrade or a reinstall of an agent whose session started meanwhile, keeping its files', async () => {
    const home = await tempDir('tutti-tx-');
    const dir = join(home, 'agents', 'tx-agent');
    let sessions = 0;
    const agents = createAgentInstaller({
      home,
      platform: PLATFORM,
      inUse: (id) =>
        sessions > 0
          ? new TuttiError('TUTTI_ERR_AGENT_IN_USE', { id, count: sessions, session: 's-1' })
          : undefined,
    });
    const old = await agents.install({ entry: entryOf('1.0.0') });
    const heard: string[] = [];
    agents.feed.subscribe((change) => {
      heard.push(change.kind);
    });
    // A session starts while the new version is staged (once the request was accepted).
    for (const version of ['2.0.0', '1.0.0']) {
      sessions = 0;
      const installing = agents.install({ entry: entryOf(version) });
      sessions = 1;
      await expect(installing).rejects.toMatchObject({ code: 'TUTTI_ERR_AGENT_IN_USE' });
      expect((await readdir(dir)).sort()).toEqual(['1.0.0', 'installed.json']);
      expect(await output(old.run!.command)).toBe('1.0.0');
      expect(await agents.feed.list()).toEqual([old]);
    }
    await expect(agents.remove('tx-agent')).rejects.toMatchObject({
      code: 'TUTTI_ERR_AGENT_IN_USE',
    });
    expect(await agents.feed.list()).toEqual([old]);
    expect(heard).toEqual([]);
    sessions = 0;
    await agents.remove('tx-agent');
    expect(existsSync(dir)).toBe(false);
  });

  it('skips a broken record in the listing', async () => {
    const { home, agents } = await setup();
    await agents.install({ entry: entryOf('1.0.0') });
    await mkdir(join(home, 'agents', 'broken-agent'));
    await writeFile(join(home, 'agents', 'broken-agent', 'installed.json'), '{not json');
    expect((await agents.list()).map((agent) => agent.id)).toEqual(['tx-agent']);
  });

  it('refuses a request that is none of the three forms', async () => {
    const { agents } = await setup();
    await expect(agents.install({} as never)).rejects.toMatchObject({
      code: 'TUTTI_ERR_AGENT_BAD_REQUEST',
    });
    await expect(agents.install({ id: 'tx-agent' })).rejects.toMatchObject({
      code: 'TUTTI_ERR_AGENT_NO_INDEX',
    });
  });

  it('installs by id from a registry index file or URL', async () => {
    const { home } = await setup();
    const index = join(home, 'registry.json');
    await writeFile(index, JSON.stringify({ version: '1', agents: [entryOf('1.0.0')] }));
    files.set('/registry.json', JSON.stringify({ agents: [entryOf('1.0.0')] }));
    const fromFile = createAgentInstaller({ home, platform: PLATFORM, registryIndex: index });
    await expect(fromFile.install({ id: 'tx-agent' })).resolves.toMatchObject({ version: '1.0.0' });
    await expect(fromFile.install({ id: 'no-such-agent' })).rejects.toMatchObject({
      code: 'TUTTI_ERR_AGENT_NOT_IN_INDEX',
    });
    const fromUrl = createAgentInstaller({
      home,
      platform: PLATFORM,
      registryIndex: `${files.url}/registry.json`,
    });
    await expect(fromUrl.install({ id: 'tx-agent' })).resolves.toMatchObject({ version: '1.0.0' });
  });
});
