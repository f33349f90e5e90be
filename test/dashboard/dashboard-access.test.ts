/**
 * Access to the dashboard of a real `tuttid`: the one-time login link (its code in the
 * fragment, traded once for a session token), what the token opens (the dashboard API,
 * never the control API; as a cookie, nothing) and what ends it and its event streams
 * (logout, a daemon restart); requests from another Origin, even another port of
 * 127.0.0.1, are refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';

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

/**
 * Trades the code of login `link` as the page does, from its own Origin (or from
 * `origin`; null: none); the answer.
 */
async function redeem(link: string, origin: string | null = new URL(link).origin) {
  const code = new URL(link).hash.replace(/^#login=/, '');
  return fetch(new URL('/dashboard/login', link), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(origin && { origin }) },
    body: JSON.stringify({ code }),
  });
}

/** The headers that carry a session signed in through `link`. */
async function signInWith(link: string): Promise<Record<string, string>> {
  const answer = await redeem(link);
  expect(answer.status).toBe(200);
  const { token } = (await answer.json()) as { token: string };
  return { authorization: `Bearer ${token}` };
}

/** The headers of a signed-in session of `daemon`. */
async function signIn(daemon: TuttidProcess): Promise<Record<string, string>> {
  return signInWith((await daemon.control('POST', '/v1/dashboard/login')).body.url);
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

/**
 * Reads `reader` to its end: whether it ended within 10 s (a generous bound, not a
 * timing), and what it carried.
 */
async function untilEnd(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<{ ended: boolean; text: string }> {
  let text = '';
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<{ ended: boolean; text: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ended: false, text }), 10_000);
  });
  const decoder = new TextDecoder();
  const end = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { ended: true, text };
      text += decoder.decode(value, { stream: true });
    }
  })();
  try {
    return await Promise.race([end, bound]);
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
}

describe('dashboard access', () => {
  it('logs in once through the link: its code, in the fragment, trades for a session token', async () => {
    const daemon = shared;
    const link = new URL((await daemon.control('POST', '/v1/dashboard/login')).body.url);
    expect(link.origin).toBe(daemon.ready.controlUrl);
    expect(link.pathname).toBe('/');
    // In the fragment, the code is never sent in a request line.
    expect(link.search).toBe('');
    expect(link.hash).toMatch(/^#login=[A-Za-z0-9_-]{43}$/);
    expect(link.hash).not.toContain(daemon.controlToken);

    // Not from the page's own Origin: refused, and the code is not spent.
    for (const origin of [null, 'http://127.0.0.1:1', 'null']) {
      const refused = await redeem(link.href, origin);
      expect(refused.status, String(origin)).toBe(403);
      expect((await answerOf(refused)).error.code).toBe('TUTTI_ERR_DASHBOARD_CROSS_ORIGIN');
    }
    const answer = await redeem(link.href);
    expect(answer.status).toBe(200);
    expect(answer.headers.getSetCookie()).toEqual([]);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const { token, expiresAt } = (await answer.json()) as { token: string; expiresAt: number };
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(token).not.toBe(daemon.controlToken);
    expect(expiresAt).toBeGreaterThan(Date.now() + 11 * 60 * 60_000);

    const again = await redeem(link.href);
    expect(again.status).toBe(401);
    expect((await answerOf(again)).error.code).toBe('TUTTI_ERR_DASHBOARD_BAD_LOGIN_CODE');
    const forged = await redeem(`${daemon.ready.controlUrl}/#login=${'a'.repeat(43)}`);
    expect(forged.status).toBe(401);
  });

  it('lets the token read the dashboard API and nothing of the control API, and a cookie nothing', async () => {
    const daemon = shared;
    const signedOut = await api(daemon, '/connectors');
    expect(signedOut.status).toBe(401);
    expect((await answerOf(signedOut)).error.code).toBe('TUTTI_ERR_DASHBOARD_SIGNED_OUT');

    const auth = await signIn(daemon);
    const listed = await api(daemon, '/connectors', { headers: auth });
    expect(listed.status).toBe(200);
    const { connectors } = await answerOf(listed);
    expect(connectors.map((c: { key: string }) => c.key).sort()).toEqual(['hello', 'notes']);

    const control = await fetch(`${daemon.ready.controlUrl}/v1/connectors`, { headers: auth });
    expect(control.status).toBe(401);
    expect((await answerOf(control)).error.code).toBe('TUTTI_ERR_CONTROL_UNAUTHORIZED');

    const token = auth.authorization!.slice('Bearer '.length);
    const port = new URL(daemon.ready.controlUrl).port;
    const cookie = `tutti_dashboard_${port}=${token}`;
    const asCookie = await api(daemon, '/connectors', { headers: { cookie } });
    expect(asCookie.status).toBe(401);
  });

  it('refuses another Origin, even another port of 127.0.0.1, even with the token', async () => {
    const daemon = shared;
    const auth = await signIn(daemon);
    const port = Number(new URL(daemon.ready.controlUrl).port);
    const others = [
      `http://127.0.0.1:${port + 1}`,
      'http://localhost:3000',
      'https://example.com',
      'null',
    ];
    for (const origin of others) {
      const read = await api(daemon, '/connectors', { headers: { ...auth, origin } });
      expect(read.status, origin).toBe(403);
      // A non-loopback Origin is refused by the control API's own check, before the dashboard's.
      expect((await answerOf(read)).error.code).toMatch(
        /^TUTTI_ERR_(DASHBOARD_CROSS|SERVER_BAD)_ORIGIN$/,
      );
      const write = await api(daemon, '/connectors/notes', {
        method: 'DELETE',
        headers: { ...auth, origin },
      });
      expect(write.status, origin).toBe(403);
    }
    const sameSite = await api(daemon, '/connectors', {
      headers: { ...auth, 'sec-fetch-site': 'same-site' },
    });
    expect(sameSite.status).toBe(403);
    // A change with no Origin at all is not from the page.
    const bare = await api(daemon, '/connectors/notes', { method: 'DELETE', headers: auth });
    expect(bare.status).toBe(403);
    const own = await api(daemon, '/connectors', {
      headers: { ...auth, origin: daemon.ready.controlUrl, 'sec-fetch-site': 'same-origin' },
    });
    expect(own.status).toBe(200);
    // The connector is still there: nothing refused acted.
    expect((await daemon.control('GET', '/v1/connectors')).body.connectors).toHaveLength(2);
  });

  it('checks the Host of every dashboard request as the control API does', async () => {
    const daemon = shared;
    const auth = await signIn(daemon);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${daemon.ready.controlUrl}/dashboard/api/connectors`);
      request(url, { headers: { ...auth, host: `attacker.example:${url.port}` } }, (res) => {
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
    const auth = await signIn(daemon);
    const origin = daemon.ready.controlUrl;
    const out = await fetch(`${origin}/dashboard/logout`, {
      method: 'POST',
      headers: { ...auth, origin },
    });
    expect(out.status).toBe(200);
    expect((await api(daemon, '/connectors', { headers: auth })).status).toBe(401);
    const twice = await fetch(`${origin}/dashboard/logout`, {
      method: 'POST',
      headers: { ...auth, origin },
    });
    expect(twice.status).toBe(401);
  });

  it('ends an open event stream when its session logs out', async () => {
    const daemon = shared;
    const auth = await signIn(daemon);
    const origin = daemon.ready.controlUrl;
    const stream = await api(daemon, '/events', { headers: auth });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read();
    const ended = untilEnd(reader);
    const out = await fetch(`${origin}/dashboard/logout`, {
      method: 'POST',
      headers: { ...auth, origin },
    });
    expect(out.status).toBe(200);
    // The stream's own end, not a delay: a stream left open fails after 10 s.
    const { ended: closed, text } = await ended;
    expect(closed).toBe(true);
    expect(text.trim().split('\n\n').at(-1)).toBe('event: ended\ndata: {"reason":"logout"}');
  });

  it('ends every session when the daemon restarts', async () => {
    const home = join(root, 'restarted');
    const first = await startTuttid(home);
    // The link of the ready line (the banner prints the same kind of link).
    const auth = await signInWith(first.ready.dashboardLogin);
    expect((await api(first, '/connectors', { headers: auth })).status).toBe(200);
    first.child.kill('SIGTERM');
    await first.exited;
    const second = await startTuttid(home, [
      '--control-port',
      new URL(first.ready.controlUrl).port,
    ]);
    expect(second.ready.controlUrl).toBe(first.ready.controlUrl);
    const answer = await api(second, '/connectors', { headers: auth });
    expect(answer.status).toBe(401);
  });

  it('gives a new login link to a holder of the control token only', async () => {
    const daemon = shared;
    const refused = await fetch(`${daemon.ready.controlUrl}/v1/dashboard/login`, {
      method: 'POST',
    });
    expect(refused.status).toBe(401);
    const issued = await daemon.control('POST', '/v1/dashboard/login');
    expect(issued.status).toBe(200);
    expect(issued.body.expiresAt).toBeGreaterThan(Date.now());
    expect((await redeem(issued.body.url)).status).toBe(200);
  });
});
