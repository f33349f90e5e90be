/**
 * A real `tuttid --credential-store keychain` over a private Secret Service (the kit's
 * bus and gnome-keyring): a credential set through the control API lives in the keychain
 * and in no file under the home, reaches the connector's CLI through its shim, survives
 * a daemon restart, and is gone from the keychain with the uninstall; and a sign-in's
 * refresh token (oidc-provider, a JWT-checking MCP server) is kept the same way.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, CONNECTOR_FIXTURES, tempDir } from '@tutti/test-kit';
import { type JoinedSecretService, joinSecretService } from '@tutti/test-kit/secret-service';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';
import { isRunning } from '@tutti/test-kit/proc-tree';
import { startOidcServer } from '@tutti/test-kit/oauth/oidc-server';
import { startProtectedMcp } from '@tutti/test-kit/oauth/protected-mcp';

const SECRET = 'sk-daemon-keychain-0c4a9e1f';
let joined: JoinedSecretService | undefined;

beforeAll(async () => {
  // Inherited by every tuttid this file starts (and by this process's own keyring calls).
  joined = await joinSecretService();
});

afterAll(async () => {
  await stopAll();
  const pids = joined?.service.pids ?? [];
  await joined?.leave();
  expect(pids.filter(isRunning)).toEqual([]);
});

afterEach(async () => {
  await stopAll();
  await cleanUp();
});

async function filesHolding(dir: string, text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(text)) found.push(path);
  }
  return found;
}

function runShim(path: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(path, ['from-agent'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

async function shimPublished(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 25));
}

async function keychainDaemon(home: string): Promise<TuttidProcess> {
  return startTuttid(home, ['--no-demo', '--credential-store', 'keychain']);
}

describe('tuttid --credential-store keychain', () => {
  it('keeps a credential only in the keychain, through a restart, and forgets it on uninstall', async () => {
    const home = await tempDir('tuttid-keychain-');
    const shim = join(home, 'bin', 'tutti-connector-keyed');
    const first = await keychainDaemon(home);
    const installed = await first.control('POST', '/v1/connectors/install', {
      path: join(CONNECTOR_FIXTURES, 'keyed'),
    });
    expect(installed.status).toBe(200);
    const set = await first.control('PUT', '/v1/connectors/keyed/credentials', { secret: SECRET });
    expect(set.body.authReady).toBe(true);
    await shimPublished(shim);
    const ran = await runShim(shim);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(ran.stdout)).toEqual({
      keyPresent: true,
      argv: ['--from-tutti', 'from-agent'],
    });
    expect(await filesHolding(home, SECRET)).toEqual([]);

    first.child.kill('SIGTERM');
    await first.exited;
    const second = await keychainDaemon(home);
    const { body } = await second.control('GET', '/v1/connectors');
    const keyed = (body.connectors as { key: string; authReady: boolean }[]).find(
      (c) => c.key === 'keyed',
    );
    expect(keyed?.authReady).toBe(true);
    await shimPublished(shim);
    expect((await runShim(shim)).code).toBe(0);

    const removed = await second.control('DELETE', '/v1/connectors/keyed');
    expect(removed.status).toBe(200);
    const { keychainItems } = await import('@tutti/core/internal');
    expect(await (await keychainItems(home)).accounts()).toEqual([]);
    expect(await readdir(join(home, 'credentials'))).toEqual([]);
    expect(second.stdout() + second.stderr() + first.stdout() + first.stderr()).not.toContain(
      SECRET,
    );
    expect(await filesHolding(home, SECRET)).toEqual([]);
  });

  it("keeps a sign-in's refresh token only in the keychain, and a restart needs no browser", async () => {
    const as = await startOidcServer({ accessTokenTtl: 60 });
    const mcp = await startProtectedMcp({ issuer: as.issuer });
    try {
      const home = await tempDir('tuttid-keychain-oauth-');
      const release = join(await tempDir('tuttid-keychain-release-'), 'acct');
      await mkdir(release, { recursive: true });
      await writeFile(
        join(release, 'tutti-connector.json'),
        JSON.stringify({
          key: 'acct',
          name: 'Account',
          description: 'A remote MCP server behind an OAuth sign-in.',
          version: '1.0.0',
          mcp: { url: mcp.url },
          auth: { kind: 'oauth2' },
        }),
      );
      const first = await keychainDaemon(home);
      await first.control('POST', '/v1/connectors/install', { path: release, wait: true });
      const begun = await first.control('POST', '/v1/connectors/acct/authorize');
      expect(begun.status).toBe(200);
      expect((await fetch(await as.signIn(begun.body.authorizationUrl))).status).toBe(200);
      const listed = async (daemon: TuttidProcess) =>
        (
          (await daemon.control('GET', '/v1/connectors')).body.connectors as {
            key: string;
            credentialStore?: string;
            runtime: { state: string };
          }[]
        ).find((c) => c.key === 'acct');
      await expect.poll(async () => (await listed(first))?.runtime.state).toBe('ready');
      expect((await listed(first))?.credentialStore).toBe('keychain');

      const { keychainItems } = await import('@tutti/core/internal');
      const items = await keychainItems(home);
      expect(await items.accounts()).toEqual(['acct/refresh_token']);
      const refreshToken = await items.get('acct', 'refresh_token');
      expect(refreshToken?.length).toBeGreaterThan(20);
      // Nothing under the home holds it: only the keychain does.
      expect(await filesHolding(home, refreshToken!)).toEqual([]);
      expect(await readdir(join(home, 'credentials'))).toEqual(['acct.oauth.json']);

      first.child.kill('SIGTERM');
      await first.exited;
      const second = await keychainDaemon(home);
      await expect.poll(async () => (await listed(second))?.runtime.state).toBe('ready');
      const output = first.stdout() + first.stderr() + second.stdout() + second.stderr();
      expect(output).not.toContain(refreshToken!);
      await second.control('DELETE', '/v1/connectors/acct');
      expect(await items.accounts()).toEqual([]);
    } finally {
      await Promise.all([mcp.close(), as.close()]);
    }
  });
});
