/**
 * The OAuth engine against a real authorization server (oidc-provider) and a protected MCP
 * server that validates its JWTs: discovery, dynamic registration, sign-in, calls through
 * `openHttpUpstream` across several access-token expiries, a grant revoked at the server,
 * signing in again, and a daemon restart that refreshes without a browser.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryVault } from '@tutti/test-kit/oauth/memory-vault';
import { startOidcServer } from '@tutti/test-kit/oauth/oidc-server';
import { startProtectedMcp } from '@tutti/test-kit/oauth/protected-mcp';
import { WAIT } from '@tutti/test-kit/waits';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError, type TuttiError } from '../errors/index.js';
import { openHttpUpstream } from '../upstream/open-http.js';
import type { UpstreamConnection } from '../upstream/types.js';
import { createOAuthClients } from './oauth-clients.js';
import type { OAuthClients, SignInLost } from './types.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A logger that keeps every entry as JSON, to show no secret was logged. */
function captureLogger() {
  const lines: string[] = [];
  const log = (object: object, message?: string) => lines.push(JSON.stringify({ object, message }));
  return { lines, logger: { debug: log, info: log, warn: log } };
}

describe('OAuth sign-in against oidc-provider', () => {
  it('signs in, keeps calls working across token expiries, survives revocation and restart', async () => {
    const as = await startOidcServer({ accessTokenTtl: 2 });
    cleanups.push(() => as.close());
    const mcp = await startProtectedMcp({ issuer: as.issuer });
    cleanups.push(() => mcp.close());
    const credentialsDir = await mkdtemp(join(tmpdir(), 'tutti-oauth-'));
    cleanups.push(() => rm(credentialsDir, { recursive: true, force: true }));
    const vault = createMemoryVault();
    const { lines, logger } = captureLogger();
    const lost: SignInLost[] = [];
    const signedIn: string[] = [];
    const engine = (port: number): OAuthClients => {
      const oauth = createOAuthClients({
        vault,
        credentialsDir,
        redirectUri: () => `http://127.0.0.1:${port}/oauth/callback`,
        logger,
        onSignInLost: (event) => lost.push(event),
        onSignedIn: (key) => signedIn.push(key),
      });
      cleanups.push(() => oauth.close());
      return oauth;
    };
    const oauth = engine(41_001);
    const connector = { key: 'remote', url: mcp.url, auth: {} };
    const open = async (clients: OAuthClients): Promise<UpstreamConnection> => {
      const upstream = await openHttpUpstream({
        url: mcp.url,
        auth: clients.transportAuth(connector),
        startTimeoutMs: 60_000,
      });
      cleanups.push(() => upstream.close());
      return upstream;
    };

    // Not signed in: the start fails with sign-in-required, and the 401's challenge is kept.
    const refused = (await open(oauth).catch((error: unknown) => error)) as TuttiError;
    expect(isTuttiError(refused, 'TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED')).toBe(true);
    expect(refused.details.reason).toBe('not signed in');
    expect(mcp.counts.unauthorized).toBeGreaterThan(0);
    expect(await oauth.hasGrant('remote')).toBe(false);

    const start = await oauth.beginSignIn(connector);
    const asked = new URL(start.authorizationUrl).searchParams;
    expect(asked.get('resource')).toBe(mcp.url);
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('scope')).toBe('mcp:tools offline_access');
    expect(asked.get('redirect_uri')).toBe('http://127.0.0.1:41001/oauth/callback');
    expect(Date.parse(start.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    const callback = await as.signIn(start.authorizationUrl);
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
    await expect(oauth.completeSignIn(Object.fromEntries(callback.searchParams))).resolves.toBe(
      'remote',
    );
    await expect.poll(() => signedIn, WAIT).toEqual(['remote']);
    expect(vault.peek('remote', 'refresh_token')).toBeDefined();
    expect(await oauth.hasGrant('remote')).toBe(true);
    const recordFile = join(credentialsDir, 'remote.oauth.json');
    expect((await stat(recordFile)).mode & 0o777).toBe(0o600);
    const record = JSON.parse(await readFile(recordFile, 'utf8'));
    expect(record).toMatchObject({ issuer: as.issuer, resource: mcp.url, clientSource: 'dynamic' });
    expect(JSON.stringify(record)).not.toContain(vault.peek('remote', 'refresh_token'));

    // Calls keep succeeding while the 2 s access tokens expire and are replaced.
    const upstream = await open(oauth);
    let calls = 0;
    while (mcp.tokensSeen.length < 4) {
      const result = await upstream.callTool('echo', { text: `n${calls}` });
      expect(result.content).toEqual([{ type: 'text', text: `echo:n${calls}` }]);
      calls += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(lost).toEqual([]);

    // The user revokes the app at the server: the next refresh gets invalid_grant.
    await as.revokeGrants();
    await expect.poll(() => lost.length, WAIT).toBe(1);
    expect(lost[0]).toEqual({
      key: 'remote',
      reason: 'the authorization server no longer accepts the grant (invalid_grant)',
    });
    expect(vault.peek('remote', 'refresh_token')).toBeUndefined();
    expect(await oauth.hasGrant('remote')).toBe(false);
    const failed = (await upstream
      .callTool('echo', { text: 'x' })
      .catch((e: unknown) => e)) as TuttiError;
    expect(isTuttiError(failed, 'TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED')).toBe(true);

    // Signing in again (same registered client) makes the same connection work again.
    const again = await oauth.beginSignIn(connector);
    const answer = await as.signIn(again.authorizationUrl);
    await oauth.completeSignIn(Object.fromEntries(answer.searchParams));
    const clientId = JSON.parse(await readFile(recordFile, 'utf8')).clientId;
    expect(clientId).toBe(record.clientId);
    expect((await upstream.callTool('echo', { text: 'back' })).content).toEqual([
      { type: 'text', text: 'echo:back' },
    ]);
    expect(lost).toHaveLength(1);

    // A restarted daemon (new engine, other port, same vault and folder) refreshes first.
    await upstream.close();
    oauth.close();
    const restarted = engine(41_002);
    expect(await restarted.hasGrant('remote')).toBe(true);
    const seen = mcp.tokensSeen.length;
    const after = await open(restarted);
    expect((await after.callTool('echo', { text: 'restart' })).content).toEqual([
      { type: 'text', text: 'echo:restart' },
    ]);
    expect(mcp.tokensSeen.length).toBeGreaterThan(seen);

    // Forget revokes at the server (its revocation_endpoint is only in the OpenID document).
    const revokedBefore = as.events.filter((event) => event === 'grant.revoked').length;
    await after.close();
    await restarted.forget('remote');
    expect(as.events.filter((event) => event === 'grant.revoked').length).toBe(revokedBefore + 1);
    expect(vault.peek('remote', 'refresh_token')).toBeUndefined();
    expect(await restarted.hasGrant('remote')).toBe(false);

    // Nothing secret was logged.
    const logged = lines.join('\n');
    expect(logged).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    for (const value of vault.items.values()) expect(logged).not.toContain(value);
  });
});
