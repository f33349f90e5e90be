/**
 * A remote connector with a real account, end to end in an in-process daemon: a real
 * authorization server from the npm registry (`oidc-provider`, on 127.0.0.1, with dynamic
 * registration, PKCE, resource indicators, refresh-token rotation and revocation) and an
 * MCP server that validates its JWT access tokens. Install -> `needs-auth` -> authorize
 * (the test follows the authorization URL with auto-consent, as a browser would) -> tools
 * listed -> calls keep succeeding across several access-token expiries (2 s lifetimes) ->
 * the grant revoked at the server -> `needs-auth`, tools gone -> sign in again; a restart
 * needs no browser; an uninstall revokes at the server and forgets everything.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectorStatus } from '@tutti/core/internal';
import { cleanUp, tempDir } from '@tutti/test-kit';
import { type OidcServer, startOidcServer } from '@tutti/test-kit/oauth/oidc-server';
import { type ProtectedMcp, startProtectedMcp } from '@tutti/test-kit/oauth/protected-mcp';
import {
  closeDaemons,
  startTestDaemon,
  type TestDaemon,
} from '@tutti/test-kit/reliability/in-process-daemon';
import { openEvents } from '@tutti/test-kit/event-stream';
import type { ReadyLine } from '@tutti/test-kit/tuttid';

const servers: { close(): Promise<void> }[] = [];
const streams: { close(): void }[] = [];

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await closeDaemons();
  await Promise.all(servers.splice(0).map((server) => server.close().catch(() => undefined)));
  await cleanUp();
});

async function accountServers(): Promise<{ as: OidcServer; mcp: ProtectedMcp }> {
  const as = await startOidcServer({ accessTokenTtl: 2 });
  servers.push(as);
  const mcp = await startProtectedMcp({ issuer: as.issuer });
  servers.push(mcp);
  return { as, mcp };
}

async function release(
  key: string,
  url: string,
  auth: object = { kind: 'oauth2' },
): Promise<string> {
  const dir = join(await tempDir('tutti-signin-'), key);
  await mkdir(dir, { recursive: true });
  const manifest = {
    key,
    name: `Account ${key}`,
    description: 'A remote connector with an account.',
    version: '1.0.0',
    mcp: { url },
    auth,
  };
  await writeFile(join(dir, 'tutti-connector.json'), JSON.stringify(manifest));
  return dir;
}

function statusOf(test: TestDaemon, key: string): ConnectorStatus | undefined {
  return test.daemon.runtime.status().find((status) => status.key === key);
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  let value: T | undefined;
  await expect
    .poll(async () => {
      value = await probe();
      return value !== undefined;
    })
    .toBe(true);
  return value as T;
}

/** An agent's view: JSON-RPC through the daemon's `connector` server with a session token. */
function agent(test: TestDaemon, token: string) {
  let id = 0;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers checked by each test
  const rpc = async (method: string, params: object = {}): Promise<any> => {
    const response = await fetch(test.daemon.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    return response.json();
  };
  return {
    async toolNames(): Promise<string[]> {
      const answer = await rpc('tools/list');
      return (answer.result.tools as { name: string }[]).map((tool) => tool.name).sort();
    },
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers checked by each test
    call: (name: string, args: object): Promise<any> =>
      rpc('tools/call', { name, arguments: args }),
  };
}

/** Signs in to `key` as a person would: authorize, the browser's trip, the callback page. */
async function signIn(test: TestDaemon, as: OidcServer, key: string): Promise<string> {
  const begun = await test.control('POST', `/v1/connectors/${key}/authorize`);
  expect(begun.status).toBe(200);
  const { authorizationUrl, expiresAt } = begun.body as {
    authorizationUrl: string;
    expiresAt: string;
  };
  expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
  const callback = await as.signIn(authorizationUrl);
  expect(`${callback.origin}${callback.pathname}`).toBe(
    `${test.daemon.info.controlUrl}/oauth/callback`,
  );
  // The browser's request: no bearer token, only what the redirect carries.
  const page = await fetch(callback);
  const html = await page.text();
  expect(page.status, html).toBe(200);
  expect(page.headers.get('cache-control')).toBe('no-store');
  expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  expect(html).not.toContain(callback.searchParams.get('code')!);
  return html;
}

describe('a remote connector that signs in with OAuth (oidc-provider, a JWT-checking MCP server)', () => {
  it('waits in needs-auth, signs in, keeps calling across token expiries, loses the grant when revoked and signs in again', async () => {
    const { as, mcp } = await accountServers();
    const test = await startTestDaemon({ backoff: { initialMs: 20, maxMs: 100 } });
    const events = await openEvents({
      ready: { controlUrl: test.daemon.info.controlUrl } as ReadyLine,
      controlToken: test.daemon.info.controlToken,
    });
    streams.push(events);
    const installed = await test.control('POST', '/v1/connectors/install', {
      path: await release('acct', mcp.url),
      wait: true,
    });
    expect(installed.status).toBe(200);
    expect(installed.body.runtime).toMatchObject({ state: 'needs-auth', signIn: true });
    expect(installed.body.runtime.toolCount).toBe(0);
    const listed = await test.control('GET', '/v1/connectors/available');
    const face = listed.body.connectors[0].interfaces[0];
    expect(face).toMatchObject({ kind: 'mcp', status: 'needs-auth' });
    expect(face.advice).toContain('/authorize');
    expect(JSON.stringify(listed.body)).not.toContain(as.issuer);

    const html = await signIn(test, as, 'acct');
    expect(html).toContain('Signed in to Account acct');
    const ready = await until(() => {
      const status = statusOf(test, 'acct');
      return status?.state === 'ready' ? status : undefined;
    });
    expect(ready.signIn).toBeUndefined();
    const client = agent(test, await test.sessionToken('signin-agent'));
    expect(await client.toolNames()).toContain('acct_echo');

    // Calls keep succeeding while the 2 s access tokens expire and are refreshed.
    const failures: unknown[] = [];
    const started = Date.now();
    let calls = 0;
    while (mcp.tokensSeen.length < 4 || Date.now() - started < 5_000) {
      const answer = await client.call('acct_echo', { text: `call ${calls}` });
      calls++;
      if (answer.error || answer.result?.isError) failures.push(answer);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(failures).toEqual([]);
    expect(new Set(mcp.tokensSeen).size).toBeGreaterThanOrEqual(4);
    expect(as.events.filter((event) => event === 'grant.revoked')).toEqual([]);

    // The person removes the app's access at the server: the next refresh is refused.
    await as.revokeGrants();
    const lost = await until(() => {
      const status = statusOf(test, 'acct');
      return status?.state === 'needs-auth' ? status : undefined;
    });
    expect(lost).toMatchObject({ signIn: true, toolCount: 0 });
    expect(await client.toolNames()).not.toContain('acct_echo');
    await events.waitFor((event) => event.type === 'connector.needs-auth' && event.key === 'acct');

    await signIn(test, as, 'acct');
    await until(() => (statusOf(test, 'acct')?.state === 'ready' ? true : undefined));
    expect(await client.toolNames()).toContain('acct_echo');
    const again = await client.call('acct_echo', { text: 'again' });
    expect(again.result?.isError).toBeFalsy();
    expect(again.result.content[0].text).toContain('again');
    await events.waitFor((event) => event.type === 'connector.signed-in');

    // Nothing of the sign-in is printed: no code, token or verifier in the log.
    const log = test.logLines.join('\n');
    for (const tail of mcp.tokensSeen) expect(log).not.toContain(tail);
  });

  it('waits for a sign-in when a server its manifest calls open answers 401 with an OAuth challenge', async () => {
    const { as, mcp } = await accountServers();
    const test = await startTestDaemon();
    const installed = await test.control('POST', '/v1/connectors/install', {
      path: await release('open', mcp.url, { kind: 'none' }),
      wait: true,
    });
    // Not a failure to retry: the server's challenge says a sign-in is what it takes.
    expect(installed.body.runtime).toMatchObject({
      state: 'needs-auth',
      signIn: true,
      toolCount: 0,
    });
    expect(installed.body.runtime.failures).toBe(0);
    expect(mcp.counts.unauthorized).toBeGreaterThan(0);
    await signIn(test, as, 'open');
    await until(() => (statusOf(test, 'open')?.state === 'ready' ? true : undefined));
    const client = agent(test, await test.sessionToken('open-agent'));
    const answer = await client.call('open_echo', { text: 'signed in' });
    expect(answer.result.content[0].text).toBe('echo:signed in');
  });

  it('starts again after a daemon restart with the stored grant, without a browser', async () => {
    const { as, mcp } = await accountServers();
    const first = await startTestDaemon();
    await first.control('POST', '/v1/connectors/install', {
      path: await release('acct', mcp.url),
      wait: true,
    });
    await signIn(first, as, 'acct');
    await until(() => (statusOf(first, 'acct')?.state === 'ready' ? true : undefined));
    const home = first.home;
    await first.stop();
    // Past the access token's life: the new daemon has only the refresh token.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const second = await startTestDaemon({ home });
    await until(() => (statusOf(second, 'acct')?.state === 'ready' ? true : undefined));
    const client = agent(second, await second.sessionToken('restarted-agent'));
    const answer = await client.call('acct_echo', { text: 'after restart' });
    expect(answer.result?.isError).toBeFalsy();
    expect(answer.result.content[0].text).toContain('after restart');
    // The grant is kept in the home's credential store (0600 files in this mode).
    const files = await readdir(join(home, 'credentials'));
    expect(files.some((name) => name.startsWith('acct.'))).toBe(true);
  });

  it('revokes the grant at the server on uninstall and forgets everything it stored', async () => {
    const { as, mcp } = await accountServers();
    const test = await startTestDaemon();
    await test.control('POST', '/v1/connectors/install', {
      path: await release('acct', mcp.url),
      wait: true,
    });
    await signIn(test, as, 'acct');
    await until(() => (statusOf(test, 'acct')?.state === 'ready' ? true : undefined));
    const revokedBefore = as.events.filter((event) => event === 'grant.revoked').length;
    const removed = await test.control('DELETE', '/v1/connectors/acct');
    expect(removed.status).toBe(200);
    // Revoked at the server before the answer: its grant is gone there too.
    expect(as.events.filter((event) => event === 'grant.revoked').length).toBe(revokedBefore + 1);
    const left = await readdir(join(test.home, 'credentials'));
    expect(left.filter((name) => name.startsWith('acct.'))).toEqual([]);
  });

  it('refuses a callback whose state it never issued, and one used twice', async () => {
    const { as, mcp } = await accountServers();
    const test = await startTestDaemon();
    await test.control('POST', '/v1/connectors/install', {
      path: await release('acct', mcp.url),
      wait: true,
    });
    const forged = await fetch(
      `${test.daemon.info.controlUrl}/oauth/callback?code=abc&state=forged&iss=${encodeURIComponent(as.issuer)}`,
    );
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('TUTTI_ERR_OAUTH_STATE_INVALID');
    const begun = await test.control('POST', '/v1/connectors/acct/authorize');
    const callback = await as.signIn(begun.body.authorizationUrl);
    expect((await fetch(callback)).status).toBe(200);
    const replay = await fetch(callback);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('TUTTI_ERR_OAUTH_STATE_INVALID');
    // The replay did not spend the grant: the connector still serves.
    await until(() => (statusOf(test, 'acct')?.state === 'ready' ? true : undefined));
  });
});
