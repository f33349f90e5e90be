/**
 * One connector's credential on disk: `<home>/credentials/<key>.json`, mode 0600, in a
 * folder of mode 0700. In the file store (record version 1) it holds the secret, and
 * beside it `<key>.secret` (0600) holds the bare secret on one line, which the connector's
 * CLI shim reads each time it runs (so the shim itself never holds the secret). The
 * `.json` file is the record; the `.secret` file exists only while it does: written
 * before it, deleted before it, and put back in line by {@link alignSecretFiles} when the
 * store opens. In the OS keychain store (record version 2) the record keeps only the
 * kind and time, and no `.secret` file exists (docs/credential-store.md). Errors never
 * carry the secret (nor a parser message, which could quote it).
 */
import { access, chmod, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { TuttiError } from '../errors/index.js';
import { writeFileAtomic } from './atomic-write.js';
import { createSecret, type Secret } from './secret.js';

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

/** Version 2: the record of a credential whose secret is in the OS keychain. */
const keychainSchema = z
  .object({
    version: z.literal(2),
    kind: z.enum(['api_key', 'oauth2']),
    store: z.literal('keychain'),
    updatedAt: z.string(),
  })
  .strict();

/** A credential's record: with its secret (file store) or without (keychain store). */
export type CredentialRecord =
  | (Credential & { readonly store: 'file' })
  | {
      readonly kind: CredentialKind;
      readonly updatedAt: string;
      readonly store: 'keychain';
    };

/**
 * Refuses a secret the `.secret` file cannot hold on its one line (an empty one too):
 * TUTTI_ERR_STORE_INVALID_CREDENTIAL.
 */
export function checkSecret(key: string, secret: Secret): void {
  const value = secret.reveal();
  if (value.length === 0) {
    throw new TuttiError('TUTTI_ERR_STORE_INVALID_CREDENTIAL', { key, reason: 'it is empty' });
  }
  if (/[\r\n\0]/.test(value)) {
    throw new TuttiError('TUTTI_ERR_STORE_INVALID_CREDENTIAL', {
      key,
      reason: 'it contains a line break or NUL',
    });
  }
}

/** Creates the credentials folder with mode 0700 (and tightens an existing one). */
export async function ensureCredentialsDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/** Path of `key`'s credential file. */
export function credentialPath(dir: string, key: string): string {
  return join(dir, `${key}.json`);
}

/** Path of `key`'s bare secret file, read by its CLI shim at run time. */
export function secretPath(dir: string, key: string): string {
  return join(dir, `${key}.secret`);
}

/** Reads `key`'s credential record (either version); undefined when none is stored. */
export async function readRecord(dir: string, key: string): Promise<CredentialRecord | undefined> {
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
  const inFile = fileSchema.safeParse(json);
  if (inFile.success) {
    const { kind, secret, updatedAt } = inFile.data;
    return { kind, secret: createSecret(secret), updatedAt, store: 'file' };
  }
  const inKeychain = keychainSchema.safeParse(json);
  if (inKeychain.success) {
    const { kind, updatedAt } = inKeychain.data;
    return { kind, updatedAt, store: 'keychain' };
  }
  throw new TuttiError('TUTTI_ERR_STORE_CREDENTIAL_CORRUPT', {
    key,
    reason: 'unexpected content',
  });
}

/**
 * Reads `key`'s credential from its file; undefined when none is stored there (none at
 * all, or a record whose secret is in the OS keychain).
 */
export async function readCredential(dir: string, key: string): Promise<Credential | undefined> {
  const record = await readRecord(dir, key);
  if (record?.store !== 'file') return undefined;
  const { kind, secret, updatedAt } = record;
  return { kind, secret, updatedAt };
}

/**
 * Writes `key`'s version 2 record (0600): its secret is in the OS keychain, so the record
 * keeps only the kind and time. The `.secret` file must be gone first (see the migration).
 */
export async function writeKeychainRecord(
  dir: string,
  key: string,
  kind: CredentialKind,
  updatedAt = new Date().toISOString(),
): Promise<void> {
  const body = { version: 2, kind, store: 'keychain', updatedAt };
  await writeFileAtomic(credentialPath(dir, key), `${JSON.stringify(body)}\n`, { mode: 0o600 });
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
  await writeFileAtomic(secretPath(dir, key), `${secret.reveal()}\n`, { mode: 0o600 });
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
  // The secret the shims read goes first: from here on no CLI run gets it.
  await rm(secretPath(dir, key), { force: true });
  await rm(path, { force: true });
  return existed;
}

/**
 * Makes the `.secret` files match the `.json` records: deletes a secret file left without
 * its record (a write or delete cut short) and writes the one a version 1 record lacks (a
 * home from before secret files, or a delete cut short before the record went). A record
 * whose secret is in the OS keychain keeps no `.secret` file: one left beside it is
 * handled by the keychain migration, which checks the keychain holds it first.
 */
export async function alignSecretFiles(dir: string): Promise<void> {
  const names = new Set(await readdir(dir));
  for (const name of names) {
    // `<key>.secret` only: `<key>.<slot>.secret` (another slot's file) has no record of its own.
    const key = name.endsWith('.secret') ? name.slice(0, -7) : undefined;
    if (key && !key.includes('.') && !names.has(`${key}.json`)) {
      await rm(join(dir, name), { force: true });
    }
  }
  for (const name of names) {
    if (!name.endsWith('.json') || name.startsWith('.')) continue;
    const key = name.slice(0, -5);
    if (names.has(`${key}.secret`)) continue;
    const stored = await readCredential(dir, key).catch(() => undefined);
    if (stored) {
      await writeFileAtomic(secretPath(dir, key), `${stored.secret.reveal()}\n`, { mode: 0o600 });
    }
  }
}
