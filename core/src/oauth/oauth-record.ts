/**
 * The non-secret half of a connector's OAuth state: which authorization server it signed
 * in to, that server's metadata, the resource indicator, the client it registered there
 * and the scope it was granted, in a 0600 JSON file `<credentialsDir>/<key>.oauth.json`.
 * Secrets (the refresh token, a client secret) live in the vault, never here, so reading
 * the record never touches the keychain.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { writeFileAtomic } from '../store/atomic-write.js';

/** How the client id was obtained (the spec's order). */
export type ClientSource = 'manifest' | 'metadata-document' | 'dynamic';

/** What `<key>.oauth.json` holds. */
export interface OAuthRecord {
  readonly version: 1;
  /** The authorization server's issuer (its metadata's `issuer`). */
  readonly issuer: string;
  /** Where its metadata was found (the PRM's `authorization_servers[0]`, or the origin). */
  readonly authorizationServerUrl: string;
  readonly metadata: AuthorizationServerMetadata;
  /** The RFC 8707 resource indicator sent on authorize, token and refresh requests. */
  readonly resource: string;
  readonly clientId: string;
  readonly clientSource: ClientSource;
  /** The scope of the grant (as granted, else as asked), once signed in. */
  readonly scope?: string;
}

/** The record file of `key`. */
export function recordPath(credentialsDir: string, key: string): string {
  return join(credentialsDir, `${key}.oauth.json`);
}

/** The record of `key`, or undefined when there is none (or it is not one we wrote). */
export async function readRecord(
  credentialsDir: string,
  key: string,
): Promise<OAuthRecord | undefined> {
  let text: string;
  try {
    text = await readFile(recordPath(credentialsDir, key), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const record = JSON.parse(text) as OAuthRecord;
    return record?.version === 1 && typeof record.clientId === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Replaces the record of `key` (0600, atomic). */
export async function writeRecord(
  credentialsDir: string,
  key: string,
  record: OAuthRecord,
): Promise<void> {
  await mkdir(credentialsDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(recordPath(credentialsDir, key), `${JSON.stringify(record, null, 2)}\n`, {
    mode: 0o600,
  });
}

/** Removes the record of `key`; nothing happens when there is none. */
export async function deleteRecord(credentialsDir: string, key: string): Promise<void> {
  await rm(recordPath(credentialsDir, key), { force: true });
}
