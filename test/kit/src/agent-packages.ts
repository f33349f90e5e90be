/**
 * Packages of the recording agent (`fixtures/agents/recording-agent`, no dependencies) as
 * the agent installer downloads them in tests: a registry entry's binary archive
 * (`.tar.gz` with the agent and a shell wrapper) and signed extensions (a package, its
 * `versions.json` and the detached Ed25519 signature), with the faults a test asks for.
 * Everything is served by a loopback {@link FileServer}.
 */
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { FIXTURES } from './paths.js';
import type { FileServer } from './file-server.js';
import { type TarEntry, tarGz } from './tar-fixtures.js';

/** The recording agent's package folder (`tutti-recording-agent@1.0.0`). */
export const RECORDING_AGENT_DIR = `${FIXTURES}agents/recording-agent`;

/** The recording agent's npm package, pinned. */
export const RECORDING_AGENT_PACKAGE = 'tutti-recording-agent@1.0.0';

/** The registry's platform key of this machine (`linux-x86_64`). */
export function platformKey(): string {
  const os = { darwin: 'darwin', linux: 'linux', win32: 'windows' }[process.platform as string];
  const arch = { x64: 'x86_64', arm64: 'aarch64' }[process.arch as string];
  return `${os ?? process.platform}-${arch ?? process.arch}`;
}

/** The hex SHA-256 of `bytes`. */
export function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A `.tar.gz` and its hex SHA-256. */
export interface Archive {
  readonly tgz: Buffer;
  readonly sha256: string;
}

/**
 * The recording agent as a binary archive: `recording-agent/agent.mjs` and an executable
 * `recording-agent/agent` wrapper (`#!/bin/sh`, runs the module with the `node` on PATH);
 * `extra` entries are added as they are (a link, a `../` path).
 */
export async function binaryAgentArchive(extra: readonly TarEntry[] = []): Promise<Archive> {
  const agent = await readFile(`${RECORDING_AGENT_DIR}/agent.mjs`);
  const tgz = tarGz([
    { path: 'recording-agent/', type: 'dir', mode: 0o755 },
    { path: 'recording-agent/agent.mjs', content: agent, mode: 0o644 },
    {
      path: 'recording-agent/agent',
      content: '#!/bin/sh\nexec node "$(dirname "$0")/agent.mjs" "$@"\n',
      mode: 0o755,
    },
    ...extra,
  ]);
  return { tgz, sha256: sha256Of(tgz) };
}

/** A registry entry (`agent.json`) of the recording agent whose binary is at `archive`. */
export function binaryEntry(
  id: string,
  archive: string,
  sha256: string | undefined,
  target: { args?: string[]; env?: Record<string, string> } = {},
): Record<string, unknown> {
  return {
    id,
    name: 'Recording agent (binary)',
    version: '1.0.0',
    description: 'A small ACP agent that records what it was started with.',
    distribution: {
      binary: {
        [platformKey()]: {
          archive,
          ...(sha256 !== undefined && { sha256 }),
          cmd: './recording-agent/agent',
          ...target,
        },
      },
    },
  };
}

/** A registry entry of the recording agent from npm (`package` defaults to the pin). */
export function npxEntry(
  id: string,
  target: { package?: string; args?: string[]; env?: Record<string, string> } = {},
): Record<string, unknown> {
  return {
    id,
    name: 'Recording agent',
    version: '1.0.0',
    description: 'A small ACP agent that records what it was started with.',
    distribution: { npx: { package: RECORDING_AGENT_PACKAGE, ...target } },
  };
}

/** An Ed25519 key pair of an extension publisher. */
export interface PublisherKeys {
  readonly publicKey: KeyObject;
  readonly privateKey: KeyObject;
}

/** A new publisher key pair. */
export function publisherKeys(): PublisherKeys {
  return generateKeyPairSync('ed25519');
}

/** What a signed extension holds, and the faults to put in it. */
export interface ExtensionSpec {
  /** The agent key (also the descriptor's id in most tests). */
  readonly agent: string;
  /** The version pinned in the source (and published, unless `listVersion`). */
  readonly version: string;
  /** The package's descriptor (`descriptor.json`). */
  readonly descriptor: Record<string, unknown>;
  /** Data files of the package besides the descriptor, by relative path. */
  readonly files?: Readonly<Record<string, string | Buffer>>;
  /** A registry entry the package carries in `tutti-extension.json` (the agent's runtime). */
  readonly entry?: unknown;
  /** The publisher whose public key the source pins (default: a new pair). */
  readonly keys?: PublisherKeys;
  /** Sign `versions.json` with this key instead of the pinned one. */
  readonly signWith?: KeyObject;
  /** Change one byte of `versions.json` after signing it. */
  readonly tamper?: boolean;
  /** The version `versions.json` and the manifest publish, instead of the pinned one. */
  readonly listVersion?: string;
  /**
   * A code file added to the package and its `files`: `js` (`tool.js`), `shebang` (a
   * `#!` text file `run.txt`), `executable` (`data.txt` with mode 0755).
   */
  readonly codeFile?: 'js' | 'shebang' | 'executable';
  /** Where on the server the files go (default: a fresh `/ext-<n>` folder). */
  readonly at?: string;
}

/** A published signed extension. */
export interface SignedExtension {
  /** The source of the install request: `{agent, version, versions, publicKey}`. */
  readonly source: { agent: string; version: string; versions: string; publicKey: string };
  readonly keys: PublisherKeys;
  /** URLs of `versions.json` and of the package. */
  readonly versionsUrl: string;
  readonly packageUrl: string;
  /** The package's `.tar.gz` and its SHA-256 (as `versions.json` lists it). */
  readonly package: Archive;
}

let published = 0;

const CODE_FILES: Record<NonNullable<ExtensionSpec['codeFile']>, TarEntry> = {
  js: { path: 'tool.js', content: 'export const x = 1;\n', mode: 0o644 },
  shebang: { path: 'run.txt', content: '#!/bin/sh\necho hello\n', mode: 0o644 },
  executable: { path: 'data.txt', content: 'plain words\n', mode: 0o755 },
};

/**
 * Builds and publishes on `server` a signed extension: the package (`tutti-extension.json`,
 * `descriptor.json`, the files), `versions.json` listing it with its SHA-256, and
 * `versions.json.sig` (Ed25519 over the exact bytes, base64); answers the source to install.
 */
export async function signedExtension(
  server: FileServer,
  spec: ExtensionSpec,
): Promise<SignedExtension> {
  const at = spec.at ?? `/ext-${++published}`;
  const keys = spec.keys ?? publisherKeys();
  const version = spec.listVersion ?? spec.version;
  const data: TarEntry[] = Object.entries(spec.files ?? {}).map(([path, content]) => ({
    path,
    content,
    mode: 0o644,
  }));
  if (spec.codeFile) data.push(CODE_FILES[spec.codeFile]);
  const manifest = {
    agent: spec.agent,
    version,
    descriptor: 'descriptor.json',
    files: data.map((entry) => entry.path),
    ...(spec.entry !== undefined && { entry: spec.entry }),
  };
  const tgz = tarGz([
    { path: 'tutti-extension.json', content: JSON.stringify(manifest, null, 2), mode: 0o644 },
    { path: 'descriptor.json', content: JSON.stringify(spec.descriptor, null, 2), mode: 0o644 },
    ...data,
  ]);
  const pkg = { tgz, sha256: sha256Of(tgz) };
  const packageUrl = `${server.url}${at}/${spec.agent}-${version}.tar.gz`;
  const versions = Buffer.from(
    JSON.stringify(
      {
        agent: spec.agent,
        published: new Date().toISOString(),
        versions: [{ version, package: packageUrl, sha256: pkg.sha256 }],
      },
      null,
      2,
    ),
  );
  const signature = sign(null, versions, spec.signWith ?? keys.privateKey).toString('base64');
  if (spec.tamper) {
    // One byte of the signed text: a digit of the SHA-256 becomes another digit.
    const offset = versions.indexOf(pkg.sha256) + 10;
    versions[offset] = versions[offset] === 0x30 ? 0x31 : 0x30;
  }
  server.set(`${at}/${spec.agent}-${version}.tar.gz`, tgz);
  server.set(`${at}/versions.json`, versions);
  server.set(`${at}/versions.json.sig`, signature);
  const versionsUrl = `${server.url}${at}/versions.json`;
  return {
    source: {
      agent: spec.agent,
      version: spec.version,
      versions: versionsUrl,
      publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    },
    keys,
    versionsUrl,
    packageUrl,
    package: pkg,
  };
}
