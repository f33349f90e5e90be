/**
 * Access to the dashboard of a real `tuttid`: the one-time login link, the HttpOnly
 * SameSite=Strict cookie it sets, what the cookie opens (the dashboard API, never the
 * control API) and what ends it (logout, a daemon restart); requests from another Origin,
 * even another port of 127.0.0.1, are refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTuttid, stopAll, type TuttidProcess } from '../support/tuttid.js';

let root: string;
/** One daemon for the tests that do not restart it (a start takes seconds). */
let shared: TuttidProcess;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tutti-dashboard-access-'));
  shared = await startTuttid(join(root, 'shared'));
});
afterAll(async () => {
  await stopAll();
  await rm(root, { recursive: true, force: true });
});

/** Opens `link` as a browser would (no redirect followed); the answer and its cookie. */
async function openLink(link: string, headers: Record<string, string> = {}) {
  const response = await fetch(link, { redirect: 'manual', headers });
  const setCookie = response.headers.getSetCookie()[0] ?? '';
  return { response, setCookie, cookie: setCookie.split(';')[0] ?? '' };
}

/** A signed-in cookie of `daemon`. */
async function signIn(daemon: TuttidProcess): Promise<string> {
  const { body } = await daemon.control('POST', '/v1/dashboard/login');
  const { response, cookie } = await openLink(body.url);
  expect(response.status).toBe(303);
  return cookie;
}

/** The JSON of a dashboard or control API answer. */
async function answerOf(
  response: Response,
): Promise<{ error: { code: string }; connectors: { key: string }[] }> {
  return (await response.json()) as never;
}

function api(daemon: TuttidProcess, path: string, init: RequestInit = {}) {
  return fetch(`${daemon.ready.controlUrl}/dashboard/api${path}`, init);
}

describe('dashboard access', () => {
  it('logs in once through the link: 303 to the page with an HttpOnly SameSite=Strict cookie', async () => {
    const daemon = shared;
    const link = new URL((await daemon.control('POST', '/v1/dashboard/login')).body.url);
    expect(link.origin).toBe(daemon.ready.controlUrl);
    expect(link.searchParams.get('code')).not.toContain(daemon.controlToken);

    const { response, setCookie } = await openLink(link.href);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
    expect(setCookie).toMatch(new RegExp(`^tutti_dashboard_${link.port}=[A-Za-z0-9_-]{43}; `));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).not.toContain(daemon.controlToken);

    const again = await openLink(link.href);
    expect(again.response.status).toBe(401);
    expect(again.setCookie).toBe('');
    expect(await again.response.text()).toContain('TUTTI_ERR_DASHBOARD_BAD_LOGIN_CODE');

    const forged = await openLink(
      `${daemon.ready.controlUrl}/dashboard/login?code=${'a'.repeat(43)}`,
    );
    expect(forged.response.status).toBe(401);
  });

  it('lets the cookie read the dashboard API and nothing of the control API', async () => {
    const daemon = shared;
    const signedOut = await api(daemon, '/connectors');
    expect(signedOut.status).toBe(401);
    expect((await answerOf(signedOut)).error.code).toBe('TUTTI_ERR_DASHBOARD_SIGNED_OUT');

    const cookie = await signIn(daemon);
    const listed = await api(daemon, '/connectors', { headers: { cookie } });
    expect(listed.status).toBe(200);
    const { connectors } = await answerOf(listed);
    expect(connectors.map((c: { key: string }) => c.key).sort()).toEqual(['hello', 'notes']);

    const control = await fetch(`${daemon.ready.controlUrl}/v1/connectors`, {
      headers: { cookie },
    });
    expect(control.status).toBe(401);
    expect((await answerOf(control)).error.code).toBe('TUTTI_ERR_CONTROL_UNAUTHORIZED');
  });

  it('refuses another Origin, even another port of 127.0.0.1, with or without the cookie', async () => {
    const daemon = shared;
    const cookie = await signIn(daemon);
    const port = Number(new URL(daemon.ready.controlUrl).port);
    const others = [
      `http://127.0.0.1:${port + 1}`,
      'http://localhost:3000',
      'https://example.com',
      'null',
    ];
    for (const origin of others) {
      const read = await api(daemon, '/connectors', { headers: { cookie, origin } });
      expect(read.status, origin).toBe(403);
      // A non-loopback Origin is refused by the control API's own check, before the dashboard's.
      expect((await answerOf(read)).error.code).toMatch(
        /^TUTTI_ERR_(DASHBOARD_CROSS|SERVER_BAD)_ORIGIN$/,
      );
      const write = await api(daemon, '/connectors/notes', {
        method: 'DELETE',
        headers: { cookie, origin },
      });
      expect(write.status, origin).toBe(403);
    }
    const sameSite = await api(daemon, '/connectors', {
      headers: { cookie, 'sec-fetch-site': 'same-site' },
    });
    expect(sameSite.status).toBe(403);
    // A change with no Origin at all is not from the page.
    const bare = await api(daemon, '/connectors/notes', { method: 'DELETE', headers: { cookie } });
    expect(bare.status).toBe(403);
    const own = await api(daemon, '/connectors', {
      headers: { cookie, origin: daemon.ready.controlUrl, 'sec-fetch-site': 'same-origin' },
    });
    expect(own.status).toBe(200);
    // The connector is still there: nothing refused acted.
    expect((await daemon.control('GET', '/v1/connectors')).body.connectors).toHaveLength(2);
  });

  it('checks the Host of every dashboard request as the control API does', async () => {
    const daemon = shared;
    const cookie = await signIn(daemon);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${daemon.ready.controlUrl}/dashboard/api/connectors`);
      request(url, { headers: { cookie, host: `attacker.example:${url.port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
  });

  it('ends the session on logout', async () => {
    const daemon = shared;
    const cookie = await signIn(daemon);
    const origin = daemon.ready.controlUrl;
    const out = await fetch(`${origin}/dashboard/logout`, {
      method: 'POST',
      headers: { cookie, origin },
    });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toMatch(/Max-Age=0/);
    expect((await api(daemon, '/connectors', { headers: { cookie } })).status).toBe(401);
  });

  it('ends every session when the daemon restarts', async () => {
    const home = join(root, 'restarted');
    const first = await startTuttid(home);
    // The link of the ready line (the banner prints the same kind of link).
    const { response, cookie } = await openLink(first.ready.dashboardLogin);
    expect(response.status).toBe(303);
    expect((await api(first, '/connectors', { headers: { cookie } })).status).toBe(200);
    first.child.kill('SIGTERM');
    await first.exited;
    const second = await startTuttid(home, [
      '--control-port',
      new URL(first.ready.controlUrl).port,
    ]);
    expect(second.ready.controlUrl).toBe(first.ready.controlUrl);
    const answer = await api(second, '/connectors', { headers: { cookie } });
    expect(answer.status).toBe(401);
  }, 90_000);

  it('gives a new login link to a holder of the control token only', async () => {
    const daemon = shared;
    const refused = await fetch(`${daemon.ready.controlUrl}/v1/dashboard/login`, {
      method: 'POST',
    });
    expect(refused.status).toBe(401);
    const issued = await daemon.control('POST', '/v1/dashboard/login');
    expect(issued.status).toBe(200);
    expect(issued.body.expiresAt).toBeGreaterThan(Date.now());
    const { response } = await openLink(issued.body.url);
    expect(response.status).toBe(303);
  });
});
