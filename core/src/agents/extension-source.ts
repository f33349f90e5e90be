/**
 * A signed extension source (`{agent, version, versions, publicKey}`) and its `versions.json`:
 * the public key is read (Ed25519, PEM SPKI or raw 32 bytes base64), the detached signature
 * at `<versions>.sig` is verified over the exact bytes, and only then is the document read:
 * its agent must be the source's, and the pinned version must be listed.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { z } from 'zod';
import { TuttiError } from '../errors/index.js';
import { formatPath } from '../manifest/manifest-issues.js';
import { checkDownloadUrl, fetchBytes, shownUrl } from './download.js';
import { AGENT_ID, AGENT_VERSION } from './registry-entry.js';

const sourceSchema = z.strictObject({
  agent: z.string().regex(AGENT_ID),
  version: z.string().regex(AGENT_VERSION),
  versions: z.string().min(1).max(4000),
  publicKey: z.string().min(1).max(4000),
});

/** An extension source as the install request gives it. */
export type ExtensionSource = z.infer<typeof sourceSchema>;

const versionsSchema = z.looseObject({
  agent: z.string(),
  published: z.string().optional(),
  versions: z.array(
    z.looseObject({
      version: z.string(),
      package: z.string().min(1),
      sha256: z.string().regex(/^[0-9a-fA-F]{64}$/),
    }),
  ),
});

/** The signed version the source pins: where its package is and its SHA-256. */
export interface SignedVersion {
  readonly version: string;
  readonly package: URL;
  readonly sha256: string;
}

/** Checks the `extension` of an install request; TUTTI_ERR_AGENT_BAD_REQUEST names the field. */
export function parseExtensionSource(raw: unknown): ExtensionSource {
  const parsed = sourceSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path =
    issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const fixes: Record<string, string> = {
    agent: 'the agent key (1-64 lowercase letters, digits or "-", starting with a letter)',
    version: 'the exact version to install, e.g. "1.2.0"',
    versions: 'the https URL of versions.json',
    publicKey: 'the Ed25519 public key, PEM (SPKI) or raw 32 bytes in base64',
  };
  const key = String(path[0] ?? '');
  throw new TuttiError('TUTTI_ERR_AGENT_BAD_REQUEST', {
    field: `extension${path.length ? `.${formatPath(path)}` : ''}`,
    problem:
      issue.code === 'unrecognized_keys'
        ? 'is not a field of a source: send {agent, version, versions, publicKey}'
        : `${issue.message}: set ${fixes[key] ?? '{agent, version, versions, publicKey}'}`,
  });
}

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Reads the source's public key; TUTTI_ERR_EXTENSION_BAD_KEY says why it cannot. */
export function readPublicKey(source: ExtensionSource): KeyObject {
  const refuse = (reason: string) =>
    new TuttiError('TUTTI_ERR_EXTENSION_BAD_KEY', { agent: source.agent, reason });
  const text = source.publicKey.trim();
  let key: KeyObject;
  try {
    if (text.includes('-----BEGIN')) {
      key = createPublicKey({ key: text, format: 'pem' });
    } else {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw refuse('it is neither PEM nor base64');
      const raw = Buffer.from(text, 'base64');
      if (raw.length !== 32) throw refuse(`it is ${raw.length} bytes, an Ed25519 key is 32`);
      key = createPublicKey({
        key: Buffer.concat([SPKI_ED25519_PREFIX, raw]),
        format: 'der',
        type: 'spki',
      });
    }
  } catch (error) {
    if (error instanceof TuttiError) throw error;
    throw refuse('it is not a public key');
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw refuse(`it is an ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  }
  return key;
}

/** Fetches `versions.json` and its `.sig`, verifies them, and answers the pinned version. */
export async function fetchSignedVersion(source: ExtensionSource): Promise<SignedVersion> {
  const key = readPublicKey(source);
  const versionsUrl = checkDownloadUrl(source.versions);
  const sigUrl = new URL(versionsUrl);
  sigUrl.pathname += '.sig';
  const bytes = await fetchBytes(versionsUrl);
  const sigText = (await fetchBytes(sigUrl, { maxBytes: 4096 })).toString('utf8').trim();
  const signature = Buffer.from(sigText, 'base64');
  const badSignature = () =>
    new TuttiError('TUTTI_ERR_EXTENSION_BAD_SIGNATURE', {
      url: shownUrl(versionsUrl),
      agent: source.agent,
    });
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(sigText) || signature.length !== 64) throw badSignature();
  if (!verify(null, bytes, key, signature)) throw badSignature();

  const badPackage = (problem: string) =>
    new TuttiError('TUTTI_ERR_EXTENSION_BAD_PACKAGE', { agent: source.agent, problem });
  let doc: z.infer<typeof versionsSchema>;
  try {
    const parsed = versionsSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw badPackage(`versions.json: ${formatPath(issue.path)}: ${issue.message}`);
    }
    doc = parsed.data;
  } catch (error) {
    if (error instanceof TuttiError) throw error;
    throw badPackage('versions.json is not JSON');
  }
  if (doc.agent !== source.agent) {
    throw new TuttiError('TUTTI_ERR_EXTENSION_IDENTITY_MISMATCH', {
      agent: source.agent,
      where: 'versions.json',
      found: doc.agent.slice(0, 100),
    });
  }
  const pinned = doc.versions.find((row) => row.version === source.version);
  if (!pinned) {
    throw new TuttiError('TUTTI_ERR_EXTENSION_VERSION_MISMATCH', {
      agent: source.agent,
      pinned: source.version,
      where: 'versions.json',
      found:
        doc.versions.length === 0
          ? 'no version'
          : `only ${doc.versions
              .map((row) => row.version.slice(0, 40))
              .slice(0, 10)
              .join(', ')}`,
    });
  }
  return {
    version: pinned.version,
    package: checkDownloadUrl(pinned.package, versionsUrl.href),
    sha256: pinned.sha256.toLowerCase(),
  };
}
