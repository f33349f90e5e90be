/**
 * A session that could not come back after a daemon restart is restarted from the
 * dashboard in headless Chromium: its row offers a Restart button, which brings the session
 * back (afresh, for an agent that can neither resume nor load) and says how.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, WAIT } from '@tutti/test-kit';
import { startBrowser, type TestBrowser } from '@tutti/test-kit/browser';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';

const FAULTY = `${FIXTURES}agents/faulty-agent.mjs`;

let root: string;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tutti-dashboard-restart-'));
  browser = await startBrowser();
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await rm(root, { recursive: true, force: true });
});

describe('the dashboard restarts a session', () => {
  it('offers Restart for a needs-restart session, brings it back and says how', async () => {
    const home = join(root, 'home');
    const first: TuttidProcess = await startTuttid(home, ['--no-demo']);
    const started = await first.control('POST', '/v1/sessions', {
      provider: 'acp',
      workspaceId: 'ws-dashboard-restart',
      cwd: root,
      env: { PATH: process.env.PATH ?? '', FAULT: 'healthy' },
      launch: { command: process.execPath, args: [FAULTY, 'acp'] },
      permissions: 'agent',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.session.id as string;
    const turn = await first.control('POST', `/v1/sessions/${id}/turns`, { prompt: 'hello' });
    expect(turn.status).toBe(200);
    first.child.kill('SIGKILL');
    await first.exited;

    const next = await startTuttid(home, ['--no-demo']);
    await expect
      .poll(async () => {
        const { sessions } = (await next.control('GET', '/v1/sessions')).body;
        return sessions.find((session: { id: string }) => session.id === id)?.status;
      }, WAIT)
      .toBe('needs-restart');

    await page.goto(next.ready.dashboardLogin);
    await page.getByRole('button', { name: 'Sessions', exact: true }).click();
    const row = page.locator(`#sessions tr[data-session="${id}"]`);
    await row.waitFor(WAIT);
    await row.getByRole('button', { name: `Restart session ${id}` }).click();
    await page.getByText(`Restarted session ${id} (fresh).`).waitFor(WAIT);
    await expect
      .poll(async () => {
        const { sessions } = (await next.control('GET', '/v1/sessions')).body;
        return sessions.find((session: { id: string }) => session.id === id)?.status;
      }, WAIT)
      .toBe('ready');
    await expect.poll(() => row.locator('td').nth(4).textContent(), WAIT).toBe('ready');
  }, 120_000);
});
