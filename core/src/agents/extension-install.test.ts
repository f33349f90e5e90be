import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanUp, type TarEntry, tarGz, tempDir } from '@tutti/test-kit';
import { type FileServer, startFileServer } from '@tutti/test-kit/file-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgentInstaller } from './agent-installer.js';

const PLATFORM = 'linux-x86_64';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let files: FileServer;
let serial = 0;
const publisher = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const rawKey = (key: KeyObject) =>
  key.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');

beforeAll(async () => {
  files = await startFileServer();
});
afterAll(() => files.close());
afterEach(cleanUp);

const DESCRIPTOR = JSON.stringify({ name: 'Fixture agent', command: 'fixture-agent' });

function manifest(overrides: Record<string, unknown> = {}) {
  return JSON.stringify({
    agent: 'fixture-agent',
    version: '2.0.0',
    descriptor: 'descriptor.json',
    files: ['home/settings.toml', 'skills/hello/SKILL.md'],
    ...overrides,
  });
}

function packageEntries(manifestText = manifest()): TarEntry[] {
  return [
    { path: 'tutti-extension.json', content: manifestText },
    { path: 'descriptor.json', content: DESCRIPTOR },
    { path: 'home/', type: 'dir' },
    { path: 'home/settings.toml', content: 'model = "x"\n' },
    { path: 'skills/hello/SKILL.md', content: '# Hello\n' },
  ];
}

interface Publication {
  entries?: TarEntry[];
  listed?: string;
  versionsAgent?: string;
  signer?: KeyObject;
  tamper?: (bytes: Buffer) => Buffer;
}

/** Publishes a package, its versions.json and signature; answers the source to install. */
function publish(options: Publication = {}) {
  const base = `/ext-${++serial}`;
  const tgz = tarGz(options.entries ?? packageEntries());
  files.set(`${base}/fixture-agent-2.0.0.tar.gz`, tgz);
  const versions = Buffer.from(
    JSON.stringify({
      agent: options.versionsAgent ?? 'fixture-agent',
      published: '2026-12-01T00:00:00Z',
      versions: [
        { version: '1.0.0', package: 'https://example.test/old.tar.gz', sha256: 'e'.repeat(64) },
        {
          version: options.listed ?? '2.0.0',
          package: 'fixture-agent-2.0.0.tar.gz',
          sha256: sha256(tgz),
        },
      ],
    }),
  );
  const signature = sign(null, versions, options.signer ?? publisher.privateKey);
  files.set(`${base}/versions.json`, options.tamper ? options.tamper(versions) : versions);
  files.set(`${base}/versions.json.sig`, `${signature.toString('base64')}\n`);
  return {
    agent: 'fixture-agent',
    version: '2.0.0',
    versions: `${files.url}${base}/versions.json`,
    publicKey: publisher.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

async function setup() {
  const home = await tempDir('tutti-ext-');
  return { home, agents: createAgentInstaller({ home, platform: PLATFORM }) };
}

async function refused(source: unknown, code: string, detail?: RegExp) {
  const { home, agents } = await setup();
  await expect(agents.install({ extension: source })).rejects.toMatchObject({
    code,
    ...(detail ? { message: expect.stringMatching(detail) } : {}),
  });
  expect(existsSync(join(home, 'agents', 'fixture-agent'))).toBe(false);
}

describe('signed extensions', () => {
  it('accepts a package whose signature, checksum, identity and version match', async () => {
    const { home, agents } = await setup();
    const source = publish();
    const agent = await agents.install({
      extension: { ...source, publicKey: rawKey(publisher.publicKey) },
    });
    const dir = join(home, 'agents', 'fixture-agent');
    const extDir = join(dir, 'extension', '2.0.0');
    expect(agent).toMatchObject({
      id: 'fixture-agent',
      version: '2.0.0',
      source: 'extension',
      extension: {
        version: '2.0.0',
        dir: extDir,
        descriptor: join(extDir, 'descriptor.json'),
        files: ['home/settings.toml', 'skills/hello/SKILL.md'],
      },
    });
    expect(agent.run).toBeUndefined();
    expect(await readFile(join(extDir, 'skills/hello/SKILL.md'), 'utf8')).toBe('# Hello\n');
    expect(JSON.parse(await readFile(join(dir, 'source.json'), 'utf8'))).toMatchObject({
      agent: 'fixture-agent',
      version: '2.0.0',
      versions: source.versions,
    });
    expect((await readdir(dir)).sort()).toEqual(['extension', 'installed.json', 'source.json']);
    expect(await agents.list()).toMatchObject([
      {
        id: 'fixture-agent',
        source: 'extension',
        extension: { version: '2.0.0', agent: 'fixture-agent' },
      },
    ]);
  });

  it('refuses versions.json changed by one byte', async () => {
    const tamper = (bytes: Buffer) => {
      const copy = Buffer.from(bytes);
      copy[copy.indexOf('2026')] = '3'.charCodeAt(0);
      return copy;
    };
    await refused(publish({ tamper }), 'TUTTI_ERR_EXTENSION_BAD_SIGNATURE', /does not verify/);
  });

  it('refuses versions.json signed with another key', async () => {
    await refused(publish({ signer: stranger.privateKey }), 'TUTTI_ERR_EXTENSION_BAD_SIGNATURE');
  });

  it('refuses a key that is not an Ed25519 public key', async () => {
    await refused({ ...publish(), publicKey: 'AAAA' }, 'TUTTI_ERR_EXTENSION_BAD_KEY', /3 bytes/);
  });

  it('refuses a pinned version that versions.json does not list', async () => {
    await refused(
      publish({ listed: '2.0.1' }),
      'TUTTI_ERR_EXTENSION_VERSION_MISMATCH',
      /versions.json says only 1.0.0, 2.0.1/,
    );
  });

  it('refuses a package whose manifest names another version or agent', async () => {
    await refused(
      publish({ entries: packageEntries(manifest({ version: '2.0.1' })) }),
      'TUTTI_ERR_EXTENSION_VERSION_MISMATCH',
      /tutti-extension.json says 2.0.1/,
    );
    await refused(
      publish({ entries: packageEntries(manifest({ agent: 'other-agent' })) }),
      'TUTTI_ERR_EXTENSION_IDENTITY_MISMATCH',
    );
    await refused(
      publish({ versionsAgent: 'other-agent' }),
      'TUTTI_ERR_EXTENSION_IDENTITY_MISMATCH',
    );
  });

  it.each<[string, TarEntry, RegExp]>([
    ['a .js file', { path: 'home/hook.js', content: 'console.log(1)' }, /code extension \.js/],
    ['a #! file', { path: 'home/run', content: '#!/bin/sh\necho\n' }, /starts with "#!"/],
    ['an executable file', { path: 'home/tool', content: 'data', mode: 0o755 }, /executable bit/],
  ])('refuses a package holding %s', async (_name, file, reason) => {
    const entries = packageEntries(
      manifest({ files: ['home/settings.toml', 'skills/hello/SKILL.md', file.path] }),
    );
    await refused(publish({ entries: [...entries, file] }), 'TUTTI_ERR_EXTENSION_NOT_DATA', reason);
  });

  it('refuses undeclared, missing and linked files', async () => {
    await refused(
      publish({ entries: [...packageEntries(), { path: 'extra.txt', content: 'x' }] }),
      'TUTTI_ERR_EXTENSION_BAD_PACKAGE',
      /holds "extra.txt", which tutti-extension.json does not declare/,
    );
    await refused(
      publish({
        entries: packageEntries(
          manifest({ files: ['home/settings.toml', 'skills/hello/SKILL.md', 'gone.md'] }),
        ),
      }),
      'TUTTI_ERR_EXTENSION_BAD_PACKAGE',
      /names "gone.md"/,
    );
    await refused(
      publish({
        entries: [...packageEntries(), { path: 'home/x', type: 'symlink', linkpath: '/etc' }],
      }),
      'TUTTI_ERR_AGENT_ARCHIVE_UNSAFE',
    );
  });

  it('refuses a package naming a path twice or a path under a file, before extracting', async () => {
    // Extraction would replace the declared settings with the second copy.
    await refused(
      publish({
        entries: [...packageEntries(), { path: 'home/./settings.toml', content: 'model = "y"\n' }],
      }),
      'TUTTI_ERR_AGENT_ARCHIVE_UNSAFE',
      /"home\/.\/settings.toml" names the path "home\/settings.toml" a second time/,
    );
    await refused(
      publish({ entries: [...packageEntries(), { path: 'home/settings.toml/', type: 'dir' }] }),
      'TUTTI_ERR_AGENT_ARCHIVE_UNSAFE',
      /a second time/,
    );
    await refused(
      publish({
        entries: [...packageEntries(), { path: 'descriptor.json/x.md', content: 'x' }],
      }),
      'TUTTI_ERR_AGENT_ARCHIVE_UNSAFE',
      /lies under "descriptor.json", an earlier file/,
    );
  });

  it.each(['NODE_OPTIONS', 'LD_PRELOAD', 'PATH', 'PYTHONPATH'])(
    'refuses an entry brought by an extension that sets %s, before installing it',
    async (name) => {
      const program = Buffer.from('#!/bin/sh\necho fixture\n');
      files.set('/env-bin', program);
      const entry = {
        id: 'fixture-agent',
        name: 'Fixture agent',
        version: '0.7.0',
        description: 'A fixture.',
        distribution: {
          binary: {
            [PLATFORM]: {
              archive: `${files.url}/env-bin`,
              sha256: sha256(program),
              cmd: './env-bin',
              env: { FIXTURE_MODE: 'quiet', [name]: '/tmp/x' },
            },
          },
        },
      };
      const before = files.requests.length;
      await refused(
        publish({ entries: packageEntries(manifest({ entry })) }),
        'TUTTI_ERR_EXTENSION_BAD_PACKAGE',
        new RegExp(
          `sets ${name} \\(distribution\\.binary\\.${PLATFORM}\\.env\\), a variable that loads code`,
        ),
      );
      expect(files.requests.slice(before)).not.toContain('/env-bin');
    },
  );

  it('installs the registry entry an extension brings as its runtime', async () => {
    const { home, agents } = await setup();
    const program = Buffer.from('#!/bin/sh\necho fixture\n');
    files.set('/bundled-bin', program);
    const entry = {
      id: 'fixture-agent',
      name: 'Fixture agent',
      version: '0.7.0',
      description: 'A fixture.',
      distribution: {
        binary: {
          [PLATFORM]: {
            archive: `${files.url}/bundled-bin`,
            sha256: sha256(program),
            cmd: './bundled-bin',
          },
        },
      },
    };
    const agent = await agents.install({
      extension: publish({ entries: packageEntries(manifest({ entry })) }),
    });
    const dir = join(home, 'agents', 'fixture-agent');
    expect(agent).toMatchObject({
      source: 'extension',
      version: '0.7.0',
      run: { command: join(dir, '0.7.0', 'bundled-bin') },
      extension: { version: '2.0.0' },
    });
    expect((await readdir(dir)).sort()).toEqual([
      '0.7.0',
      'extension',
      'installed.json',
      'source.json',
    ]);
    const other = { ...entry, id: 'other-agent' };
    await refused(
      publish({ entries: packageEntries(manifest({ entry: other })) }),
      'TUTTI_ERR_EXTENSION_IDENTITY_MISMATCH',
      /the entry of tutti-extension.json names "other-agent"/,
    );
  });

  it('keeps the installed registry runtime under an extension without an entry', async () => {
    const { agents } = await setup();
    const program = Buffer.from('#!/bin/sh\necho fixture\n');
    files.set('/fixture-agent-bin', program);
    const entry = {
      id: 'fixture-agent',
      name: 'Fixture agent',
      version: '0.5.0',
      description: 'A fixture.',
      distribution: {
        binary: {
          [PLATFORM]: {
            archive: `${files.url}/fixture-agent-bin`,
            sha256: sha256(program),
            cmd: './fixture-agent-bin',
          },
        },
      },
    };
    const runtime = await agents.install({ entry });
    const both = await agents.install({ extension: publish() });
    expect(both).toMatchObject({
      source: 'registry',
      version: '0.5.0',
      run: runtime.run,
      extension: { version: '2.0.0' },
    });
    expect(existsSync(runtime.run!.command)).toBe(true);
  });
});
