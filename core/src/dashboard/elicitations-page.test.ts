/**
 * The dashboard shows, in headless Chromium, the questions an upstream asks the person
 * through a live session's agent and nobody answered yet: session, connector, tool,
 * question, mode and since, as text (an upstream's message is never markup), gone once
 * answered. The control app runs in-process with the session host, the dashboard and the
 * turn and session endpoints; a board stands in for the `connector` server's record of what
 * it relayed, and `/v1/connectors` answers no connector (the page reads it on every refresh).
 */
import type { AddressInfo } from 'node:net';
import { WAIT } from '@tutti/test-kit';
import { startBrowser, type TestBrowser } from '@tutti/test-kit/browser';
import { closeHostWorlds, hostWorld } from '@tutti/test-kit/core/host-world';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayedElicitation } from '../contracts/elicitation.js';
import { buildControlApp } from '../daemon/control-app.js';
import { registerSessionEndpoints } from '../daemon/session-endpoints.js';
import { registerTurnEndpoints } from '../daemon/turn-endpoints.js';
import { createEventHub } from '../events/index.js';
import { registerDashboard } from './dashboard-routes.js';

const CONTROL_TOKEN = 'control-token-of-the-dashboard-elicitation-test';
const HOSTILE = 'Delete 40 files? <img src=x onerror="window.__owned=1">';

describe('the dashboard shows what agents are asked', () => {
  let app: FastifyInstance;
  let browser: TestBrowser;
  const board: RelayedElicitation[] = [];
  let origin = '';
  let loginUrl = '';

  beforeAll(async () => {
    const world = await hostWorld({
      elicitations: {
        pendingFor: (id) => board.filter((entry) => entry.agentSessionId === id),
      },
    });
    let port = 0;
    app = buildControlApp({ controlToken: CONTROL_TOKEN, port: () => port });
    const events = createEventHub();
    registerSessionEndpoints(app, world.host);
    registerTurnEndpoints(app, world.host);
    app.get('/v1/connectors', async () => ({ connectors: [] }));
    const dashboard = registerDashboard(app, {
      controlToken: CONTROL_TOKEN,
      port: () => port,
      registry: { snapshot: () => ({ version: 1, tools: [] }) } as never,
      runtime: { events: () => [] },
      events,
    });
    app.addHook('onClose', async () => events.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
    const info = await world.start();
    board.push({
      agentSessionId: info.id,
      connector: 'files',
      tool: 'files_confirm_delete',
      request: { mode: 'form', message: HOSTILE, requestedSchema: { type: 'object' } },
      since: Date.now(),
    });
    loginUrl = dashboard.loginLink().url;
    browser = await startBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await closeHostWorlds();
  });

  it('lists a pending elicitation of a live session as text, and drops it once answered', async () => {
    expect(loginUrl.startsWith(origin)).toBe(true);
    const page = await browser.context.newPage();
    await page.goto(loginUrl);
    await page.getByRole('button', { name: 'Sessions', exact: true }).click();
    const row = page.locator('#elicitations tbody tr');
    await row.first().waitFor(WAIT);
    expect(await row.count()).toBe(1);
    expect(await row.locator('.connector').textContent()).toBe('files');
    expect(await row.locator('.tool').textContent()).toBe('files_confirm_delete');
    expect(await row.locator('.message').textContent()).toBe(HOSTILE);
    expect(await row.locator('.mode').textContent()).toBe('form');
    expect(await row.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.__owned')).toBeUndefined();

    board.splice(0);
    await expect.poll(() => page.locator('#elicitations').count(), WAIT).toBe(0);
    await page.close();
  });
});
