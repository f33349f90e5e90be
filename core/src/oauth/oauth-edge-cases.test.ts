/**
 * The OAuth engine against a hand-made authorization server that can misbehave on demand:
 * state, iss, PKCE and registration refusals, a manifest client id, rotation stored before
 * use, one refresh for 16 concurrent 401s, an authorization server that is down, the
 * refresh schedule, step-up, client ID metadata documents, and forget.
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FixtureAsKnobs, startFixtureAs } from '@tutti/test-kit/oauth/fixture-as';
import { createMemoryVault } from '@tutti/test-kit/oauth/memory-vault';
import { startProtectedMcp } from '@tutti/test-kit/oauth/protected-mcp';
import { WAIT } from '@tutti/test-kit/waits';
import { afterEach, describe, expect, it } from 'vitest';
import type { TuttiError } from '../errors/index.js';
import { createSecretRedactor } from '../process/secret-redactor.js';
import { openHttpUpstream } from '../upstream/open-http.js';
import type { UpstreamConnection } from '../upstream/types.js';
import { refreshDelay } from './connector-grant.js';
import { createOAuthClients } from './oauth-clients.js';
import type { OAuthManifestAuth, SignInLost } from './types.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const REDIRECT = 'http://127.0.0.1:41010/oauth/callback';

interface SetupOptions {
  knobs?: Partial<FixtureAsKnobs>;
  preregistered?: string[];
  auth?: OAuthManifestAuth;
  clientMetadataUrl?: string;
  clock?: { offset: number };
  vaultDelayMs?: number;
  authorizationServerTimeoutMs?: number;
}

async function setup(options: SetupOptions = {}) {
  const as = await startFixtureAs(options.knobs, options.preregistered);
  cleanups.push(() => as.close());
  const mcp = await startProtectedMcp({ issuer: as.issuer });
  cleanups.push(() => mcp.close());
  const credentialsDir = await mkdtemp(join(tmpdir(), 'tutti-oauth-'));
  cleanups.push(() => rm(credentialsDir, { recursive: true, force: true }));
  const vault = createMemoryVault(new Map(), options.vaultDelayMs);
  const lost: SignInLost[] = [];
  const logged: string[] = [];
  const log = (object: object, message?: string) =>
    logged.push(JSON.stringify({ object, message }));
  const redactor = createSecretRedactor();
  const clock = options.clock;
  const oauth = createOAuthClients({
    vault,
    credentialsDir,
    redirectUri: () => REDIRECT,
    ...(options.clientMetadataUrl ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    // Every bearer a request carries goes to the vault's log too: one order of events.
    fetch: (url, init) => {
      const bearer = new Headers(init?.headers).get('authorization');
      if (bearer?.startsWith('Bearer ')) vault.log.push(`use ${bearer.slice(-8)}`);
      return fetch(url, init);
    },
    ...(clock ? { now: () => Date.now() + clock.offset } : {}),
    ...(options.authorizationServerTimeoutMs !== undefined && {
      authorizationServerTimeoutMs: options.authorizationServerTimeoutMs,
    }),
    logger: { debug: log, info: log, warn: log },
    redactor,
    onSignInLost: (event) => lost.push(event),
  });
  cleanups.push(() => oauth.close());
  const connector = { key: 'remote', url: mcp.url, auth: options.auth ?? {} };
  const signIn = async () => {
    const start = await oauth.beginSignIn(connector);
    const answer = await as.signIn(start.authorizationUrl);
    return oauth.completeSignIn(Object.fromEntries(answer.searchParams));
  };
  const open = async (): Promise<UpstreamConnection> => {
    const upstream = await openHttpUpstream({
      url: mcp.url,
      auth: oauth.transportAuth(connector),
      startTimeoutMs: 60_000,
    });
    cleanups.push(() => upstream.close());
    return upstream;
  };
  return { as, mcp, vault, oauth, lost, logged, redactor, connector, signIn, open, credentialsDir };
}

const errorOf = async (promise: Promise<unknown>): Promise<TuttiError> =>
  (await promise.then(
    () => new Error('resolved'),
    (error: unknown) => error,
  )) as TuttiError;

const echo = (text: string) => [{ type: 'text', text: `echo:${text}` }];

describe('sign-in refusals', () => {
  it('refuses an answer whose state is unknown, already used or older than 10 minutes', async () => {
    const clock = { offset: 0 };
    const { as, oauth, connector, signIn } = await setup({ clock });
    expect((await errorOf(oauth.completeSignIn({ state: 'made-up', code: 'x' }))).code).toBe(
      'TUTTI_ERR_OAUTH_STATE_INVALID',
    );

    const start = await oauth.beginSignIn(connector);
    const answer = Object.fromEntries((await as.signIn(start.authorizationUrl)).searchParams);
    const wrongCode = { ...answer, code: 'not-the-code' };
    expect((await errorOf(oauth.completeSignIn(wrongCode))).code).toBe(
      'TUTTI_ERR_OAUTH_TOKEN_REQUEST_FAILED',
    );
    // The failed attempt spent the state: the right code is refused now.
    expect((await errorOf(oauth.completeSignIn(answer))).code).toBe(
      'TUTTI_ERR_OAUTH_STATE_INVALID',
    );

    const late = await oauth.beginSignIn(connector);
    const lateAnswer = (await as.signIn(late.authorizationUrl)).searchParams;
    clock.offset = 10 * 60_000 + 1;
    expect((await errorOf(oauth.completeSignIn(Object.fromEntries(lateAnswer)))).code).toBe(
      'TUTTI_ERR_OAUTH_STATE_INVALID',
    );
    clock.offset = 0;
    await expect(signIn()).resolves.toBe('remote');
  });

  it('refuses a redirect whose iss names another server, without redeeming the code', async () => {
    const { as, oauth, connector, vault } = await setup({
      knobs: { redirectIss: 'http://127.0.0.1:1/elsewhere' },
    });
    const start = await oauth.beginSignIn(connector);
    const answer = await as.signIn(start.authorizationUrl);
    const error = await errorOf(oauth.completeSignIn(Object.fromEntries(answer.searchParams)));
    expect(error.code).toBe('TUTTI_ERR_OAUTH_ISSUER_MISMATCH');
    expect(as.counts.codeExchanges).toBe(0);
    expect(as.lastTokenRequest).toBeUndefined();
    expect(vault.peek('remote', 'refresh_token')).toBeUndefined();
  });

  it('reports a denied authorization by its error code only', async () => {
    const { as, oauth, connector } = await setup({ knobs: { denyWith: 'access_denied' } });
    const start = await oauth.beginSignIn(connector);
    const answer = await as.signIn(start.authorizationUrl);
    const error = await errorOf(oauth.completeSignIn(Object.fromEntries(answer.searchParams)));
    expect(error.code).toBe('TUTTI_ERR_OAUTH_AUTHORIZATION_DENIED');
    expect(error.details.reason).toBe('access_denied');
    expect(error.message).not.toContain('script');
  });

  it('refuses a server without authorization server metadata instead of guessing endpoints', async () => {
    const { oauth, connector, as } = await setup({ knobs: { metadata: false } });
    const error = await errorOf(oauth.beginSignIn(connector));
    expect(error.code).toBe('TUTTI_ERR_OAUTH_DISCOVERY_FAILED');
    expect(error.details.reason).toBe(`no authorization server metadata at ${as.issuer}`);
    expect(as.counts.registrations).toBe(0);
  });

  it('reports a refused registration by its status and error code, not the body', async () => {
    const { oauth, connector } = await setup({ knobs: { refuseRegistration: true } });
    const error = await errorOf(oauth.beginSignIn(connector));
    expect(error.code).toBe('TUTTI_ERR_OAUTH_REGISTRATION_FAILED');
    expect(error.details.reason).toBe('HTTP 400, invalid_client_metadata');
    expect(error.message).not.toContain('redirect_uris');
  });

  it('refuses a server that does not advertise PKCE with S256', async () => {
    const { oauth, connector, as } = await setup({ knobs: { pkce: false } });
    const error = await errorOf(oauth.beginSignIn(connector));
    expect(error.code).toBe('TUTTI_ERR_OAUTH_PKCE_UNSUPPORTED');
    expect(error.details.issuer).toBe(as.issuer);
    expect(as.counts.registrations).toBe(0);
  });

  it('refuses a server without registration, and signs in there with the manifest clientId', async () => {
    const without = await setup({ knobs: { registration: false } });
    expect((await errorOf(without.oauth.beginSignIn(without.connector))).code).toBe(
      'TUTTI_ERR_OAUTH_REGISTRATION_UNSUPPORTED',
    );

    const manual = await setup({
      knobs: { registration: false },
      preregistered: ['tutti-manual'],
      auth: { clientId: 'tutti-manual', scopes: ['mcp:tools'] },
    });
    await expect(manual.signIn()).resolves.toBe('remote');
    expect(manual.as.lastAuthorization?.get('client_id')).toBe('tutti-manual');
    expect(manual.as.lastAuthorization?.get('scope')).toBe('mcp:tools offline_access');
    const upstream = await manual.open();
    expect((await upstream.callTool('echo', { text: 'm' })).content).toEqual(echo('m'));
  });

  it('uses a client ID metadata document where the server supports them', async () => {
    const cimd = 'https://tutti.example/oauth/client.json';
    const { as, signIn } = await setup({
      knobs: { clientMetadataDocuments: true },
      preregistered: [cimd],
      clientMetadataUrl: cimd,
    });
    await expect(signIn()).resolves.toBe('remote');
    expect(as.counts.registrations).toBe(0);
    expect(as.lastAuthorization?.get('client_id')).toBe(cimd);
  });
});

describe('tokens that keep themselves valid', () => {
  it('schedules a refresh at the earlier of 60 s before expiry and 80%, not before half', () => {
    expect(refreshDelay(3_600_000)).toBe(2_880_000);
    expect(refreshDelay(300_000)).toBe(240_000);
    expect(refreshDelay(120_000)).toBe(60_000);
    expect(refreshDelay(30_000)).toBe(15_000);
    expect(refreshDelay(2_000)).toBe(1_000);
  });

  it('stores a rotated refresh token before the new access token is used', async () => {
    const { as, vault, oauth, connector, signIn, open, redactor } = await setup({
      knobs: { accessTokenTtl: 2 },
      vaultDelayMs: 300,
    });
    await signIn();
    const upstream = await open();
    await expect.poll(() => as.counts.refreshes, WAIT).toBeGreaterThanOrEqual(1);
    expect(as.refreshTokenLive(as.issued[0]?.refreshToken ?? '')).toBe(false);
    // Pairs from a refresh whose access token a call carried (a slow machine may refresh
    // more than once before the call).
    const usedRotated = () =>
      as.issued.slice(1).filter((pair) => vault.log.includes(`use ${pair.accessToken.slice(-8)}`));
    await expect
      .poll(async () => {
        expect((await upstream.callTool('echo', { text: 'r' })).content).toEqual(echo('r'));
        return usedRotated().length;
      }, WAIT)
      .toBeGreaterThan(0);
    for (const pair of usedRotated()) {
      const stored = vault.log.indexOf(`set refresh_token ${pair.refreshToken.slice(-8)}`);
      const used = vault.log.indexOf(`use ${pair.accessToken.slice(-8)}`);
      expect(stored).toBeGreaterThanOrEqual(0);
      expect(stored).toBeLessThan(used);
    }
    // The token held is known to the redactor.
    const held = (await oauth.transportAuth(connector).authProvider.token()) ?? 'none';
    expect(redactor.redact(`x ${held} y`)).toBe('x [redacted] y');
  });

  it('answers 16 concurrent calls that meet a 401 with exactly one refresh', async () => {
    const { as, mcp, signIn, open } = await setup();
    await signIn();
    const upstream = await open();
    expect((await upstream.callTool('echo', { text: 'warm' })).content).toEqual(echo('warm'));
    mcp.refuseTokensSeen();
    const unauthorizedBefore = mcp.counts.unauthorized;
    const results = await Promise.allSettled(
      Array.from({ length: 16 }, (_, i) => upstream.callTool('echo', { text: `c${i}` })),
    );
    expect(results.map((result) => result.status)).toEqual(Array(16).fill('fulfilled'));
    expect(as.counts.refreshes).toBe(1);
    expect(as.counts.refreshFailures).toBe(0);
    expect(mcp.counts.unauthorized - unauthorizedBefore).toBeGreaterThanOrEqual(1);
  });

  it('refreshes on schedule without any call', async () => {
    const { as, mcp, signIn } = await setup({ knobs: { accessTokenTtl: 2 } });
    await signIn();
    await expect.poll(() => as.counts.refreshes, WAIT).toBeGreaterThanOrEqual(2);
    expect(mcp.counts.ok + mcp.counts.unauthorized).toBe(0);
  });

  for (const mode of ['refused', '503', 'hang'] as const) {
    it(`keeps the sign-in while the authorization server is down (${mode}) and works once it is back`, async () => {
      const { as, vault, oauth, lost, signIn, open } = await setup({
        knobs: { accessTokenTtl: 2 },
        // A server that takes the request and never answers is given up on, not waited for.
        authorizationServerTimeoutMs: 1_000,
      });
      await signIn();
      const upstream = await open();
      expect((await upstream.callTool('echo', { text: 'up' })).content).toEqual(echo('up'));
      await as.setDown(mode);
      await expect
        .poll(
          async () =>
            (await errorOf(upstream.callTool('echo', { text: 'down' }))).code ?? 'answered',
          WAIT,
        )
        .toBe('TUTTI_ERR_OAUTH_SERVER_UNREACHABLE');
      const failure = await errorOf(upstream.callTool('echo', { text: 'down' }));
      expect(failure.details.reason).toBe(
        { '503': 'HTTP 503', refused: 'connection refused', hang: 'no answer in time' }[mode],
      );
      expect(vault.peek('remote', 'refresh_token')).toBe(as.issued.at(-1)?.refreshToken);
      expect(await oauth.hasGrant('remote')).toBe(true);
      await as.setDown(false);
      await expect
        .poll(
          async () =>
            (await upstream.callTool('echo', { text: 'back' }).catch(() => null))?.content,
          WAIT,
        )
        .toEqual(echo('back'));
      expect(lost).toEqual([]);
    });
  }

  it('asks for a new sign-in with the wider scope when the server wants more (step-up)', async () => {
    const { as, mcp, oauth, lost, connector, signIn, open } = await setup();
    await signIn();
    const upstream = await open();
    expect((await upstream.callTool('echo', { text: 's' })).content).toEqual(echo('s'));
    mcp.requireScopes(['mcp:tools', 'mcp:admin']);
    const error = await errorOf(upstream.callTool('echo', { text: 's' }));
    expect(error.code).toBe('TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED');
    expect(error.details.reason).toBe('the server asks for more access');
    expect(lost).toEqual([{ key: 'remote', reason: 'the server asks for more access' }]);
    const start = await oauth.beginSignIn(connector);
    expect(new URL(start.authorizationUrl).searchParams.get('scope')).toBe(
      'mcp:tools mcp:admin offline_access',
    );
    expect(as.counts.registrations).toBe(1);
  });
});

describe('a sign-in the server no longer accepts', () => {
  it('forgets a client the server rejects and registers anew at the next sign-in', async () => {
    const { as, vault, oauth, lost, signIn, credentialsDir } = await setup({
      knobs: { accessTokenTtl: 2 },
    });
    await signIn();
    as.forgetClients();
    await expect.poll(() => lost.length, WAIT).toBe(1);
    expect(lost[0]?.reason).toBe('the authorization server rejected the client (invalid_client)');
    expect(vault.peek('remote', 'refresh_token')).toBeUndefined();
    await expect(access(join(credentialsDir, 'remote.oauth.json'))).rejects.toThrow();
    expect(await oauth.hasGrant('remote')).toBe(false);
    await expect(signIn()).resolves.toBe('remote');
    expect(as.counts.registrations).toBe(2);
  });

  it('turns a 401 even after the refresh into sign-in-required, not a dead connection', async () => {
    const { as, mcp, signIn, open } = await setup();
    await signIn();
    const upstream = await open();
    mcp.refuseEveryToken(true);
    const error = await errorOf(upstream.callTool('echo', { text: 'x' }));
    expect(error.code).toBe('TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED');
    expect(error.details).toEqual({
      key: 'remote',
      reason: 'the server refused a freshly refreshed access token',
    });
    expect(as.counts.refreshes).toBe(1);
    mcp.refuseEveryToken(false);
    expect((await upstream.callTool('echo', { text: 'y' })).content).toEqual(echo('y'));
    expect(upstream.closed).toBe(false);
  });
});

describe('forget', () => {
  it('revokes the grant at the server and deletes everything stored', async () => {
    const { as, vault, oauth, signIn, credentialsDir } = await setup();
    await signIn();
    const refreshToken = vault.peek('remote', 'refresh_token') ?? '';
    expect(as.refreshTokenLive(refreshToken)).toBe(true);
    await oauth.forget('remote');
    expect(as.counts.revocations).toBe(1);
    expect(as.refreshTokenLive(refreshToken)).toBe(false);
    expect(vault.peek('remote', 'refresh_token')).toBeUndefined();
    expect(vault.peek('remote', 'client_secret')).toBeUndefined();
    await expect(access(join(credentialsDir, 'remote.oauth.json'))).rejects.toThrow();
    expect(await oauth.hasGrant('remote')).toBe(false);
  });
});
