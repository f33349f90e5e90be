/**
 * The dashboard's routes on a real control app over a loopback socket, on a manual clock:
 * the login trades a one-time code for a token that only `Authorization` carries, and an
 * open event stream ends, with a last `ended` event, when its session does (logout, expiry,
 * revocation by the session cap), while another session's stream goes on.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildControlApp } from '../daemon/control-app.js';
import { createEventHub, type EventHub } from '../events/index.js';
import { createConnectorMCPRegistry } from '../registry/connector-mcp-registry.js';
import { createManualClock } from '@tutti/test-kit/core/manual-clock';
import { registerDashboard } from './dashboard-routes.js';
import { MAX_SESSIONS, SESSION_TTL_MS } from './dashboard-sessions.js';

const CONTROL_TOKEN = 'control-token-of-the-dashboard-route-tests';
const opened: { app: FastifyInstance; events: EventHub }[] = [];

afterEach(async () => {
  for (const { app, events } of opened.splice(0)) {
    events.close();
    await app.close();
  }
});

/** A stream being read: `text` resolves with all it carried once it ends. */
interface OpenStream {
  readonly text: Promise<string>;
}

async function startDashboard() {
  const clock = createManualClock();
  let port = 0;
  const app = buildControlApp({ controlToken: CONTROL_TOKEN, port: () => port });
  const events = createEventHub();
  const dashboard = registerDashboard(app, {
    controlToken: CONTROL_TOKEN,
    port: () => port,
    registry: createConnectorMCPRegistry(),
    runtime: { events: () => [] },
    events,
    clock,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  opened.push({ app, events });
  const origin = `http://127.0.0.1:${port}`;

  const login = async (): Promise<string> => {
    const link = new URL(dashboard.loginLink().url);
    expect(link.search).toBe('');
    const code = link.hash.replace(/^#login=/, '');
    const answer = await fetch(`${origin}/dashboard/login`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { token: string }).token;
  };
  const tools = async (headers: Record<string, string>) =>
    (await fetch(`${origin}/dashboard/api/tools`, { headers })).status;
  const openStream = async (token: string): Promise<OpenStream> => {
    const response = await fetch(`${origin}/dashboard/api/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    // The stream's opening comment: the server has subscribed it.
    let text = (await reader.read()).value ?? '';
    const rest = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text;
        text += value;
      }
    })();
    return { text: rest };
  };
  return { clock, events, origin, login, tools, openStream };
}

/** The reason of the stream's last `ended` event. */
function endReason(text: string): unknown {
  const block = text.trim().split('\n\n').at(-1) ?? '';
  expect(block.split('\n')[0]).toBe('event: ended');
  return (JSON.parse(block.split('\n')[1]!.slice('data: '.length)) as { reason: unknown }).reason;
}

describe('dashboard routes', () => {
  it('opens the API to the token in Authorization, never to it as a cookie', async () => {
    const d = await startDashboard();
    const token = await d.login();
    expect(await d.tools({ authorization: `Bearer ${token}` })).toBe(200);
    const port = new URL(d.origin).port;
    expect(await d.tools({ cookie: `tutti_dashboard_${port}=${token}` })).toBe(401);
    expect(await d.tools({ authorization: `Bearer ${CONTROL_TOKEN}` })).toBe(401);
  });

  it('ends an open event stream at logout, and only the stream of that session', async () => {
    const d = await startDashboard();
    const token = await d.login();
    const otherToken = await d.login();
    const stream = await d.openStream(token);
    const other = await d.openStream(otherToken);
    const out = await fetch(`${d.origin}/dashboard/logout`, {
      method: 'POST',
      headers: { origin: d.origin, authorization: `Bearer ${token}` },
    });
    expect(out.status).toBe(200);
    expect(endReason(await stream.text)).toBe('logout');
    expect(await d.tools({ authorization: `Bearer ${token}` })).toBe(401);
    // The other session still streams.
    d.events.publish({ type: 'tools.changed', version: 7, toolCount: 0 });
    await fetch(`${d.origin}/dashboard/logout`, {
      method: 'POST',
      headers: { origin: d.origin, authorization: `Bearer ${otherToken}` },
    });
    const otherText = await other.text;
    expect(otherText).toContain('event: tools.changed');
    expect(endReason(otherText)).toBe('logout');
  });

  it('ends an open event stream when its session expires', async () => {
    const d = await startDashboard();
    const token = await d.login();
    const stream = await d.openStream(token);
    d.clock.advance(SESSION_TTL_MS);
    expect(endReason(await stream.text)).toBe('expired');
    expect(await d.tools({ authorization: `Bearer ${token}` })).toBe(401);
  });

  it('ends an open event stream when a login over the cap revokes its session', async () => {
    const d = await startDashboard();
    const token = await d.login();
    const stream = await d.openStream(token);
    for (let i = 0; i < MAX_SESSIONS; i++) await d.login();
    expect(endReason(await stream.text)).toBe('revoked');
    expect(await d.tools({ authorization: `Bearer ${token}` })).toBe(401);
  });
});
