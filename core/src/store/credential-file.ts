/**
 * One connector's credential on disk: `<home>/credentials/<key>.json`, mode 0600, in a
 * folder of mode 0700. Errors about it never carry the secret (nor a parser message,
 * which could quote it).
 */
import { access, chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { TuttiError } from '../errors/index.js';
import { writeFileAtomic } from './atomic-write.js';
import { Secret } from './secret.js';

/** Authorization kinds that take a credential. */
export type CredentialKind = 'api_key' | 'oauth2';

/** A stored credential: its kind and the wrapped secret. */
export interface Credential {
  readonly kind: CredentialKind;
  readonly secret: Secret;
  /** ISO time it was set. */
  readonly updatedAt: string;
}

const fileSchema = z
  .object({
    version: z.literal(1),
    kind: z.enum(['api_key', 'oauth2']),
    secret: z.string().min(1),
    updatedAt: z.string(),
  })
  .strict();

/** Creates the credentials folder with mode 0700 (and tightens an existing one). */
export async function ensureCredentialsDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/** Path of `key`'s credential file. */
export function credentialPath(dir: string, key: string): string {
  return join(dir, `${key}.json`);
}

/** Reads `key`'s credential; undefined when none is stored. */
export async function readCredential(dir: string, key: string): Promise<Credential | undefined> {
  let text: string;
  try {
    text = await readFile(credentialPath(dir, key), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new TuttiError('TUTTI_ERR_STORE_CREDENTIAL_CORRUPT', {
      key,
      reason: code ?? 'read failed',
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TuttiError('TUTTI_ERR_STORE_CREDENTIAL_CORRUPT', { key, reason: 'not valid JSON' });
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    throw new TuttiError('TUTTI_ERR_STORE_CREDENTIAL_CORRUPT', {
      key,
      reason: 'unexpected content',
    });
  }
  const { kind, secret, updatedAt } = parsed.data;
  return { kind, secret: new Secret(secret), updatedAt };
}

/** Writes `key`'s credential atomically with mode 0600. */
export async function writeCredential(
  dir: string,
  key: string,
  kind: CredentialKind,
  secret: Secret,
): Promise<Credential> {
  const updatedAt = new Date().toISOString();
  const body = { version: 1, kind, secret: secret.reveal(), updatedAt };
  await writeFileAtomic(credentialPath(dir, key), `${JSON.stringify(body)}\n`, { mode: 0o600 });
  return { kind, secret, updatedAt };
}

/** Deletes `key`'s credential file; true when one existed. */
export async function deleteCredential(dir: string, key: string): Promise<boolean> {
  const path = credentialPath(dir, key);
  const existed = await access(path).then(
    () => true,
    () => false,
  );
  await rm(path, { force: true });
  return existed;
}
