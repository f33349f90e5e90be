/**
 * `/dashboard/api/agents*` on a real control app over a loopback socket: the list, the
 * install and the removal are passed to `GET /v1/agents`, `POST /v1/agents/install` (the
 * body as the page sent it) and `DELETE /v1/agents/{id}` (the id encoded) with the daemon's
 * control token, and answered with those endpoints' answers and errors; without a dashboard
 * session they answer 401 and ask nothing. The control routes here are stand-ins that
 * record what they were asked (the real ones are tested in core/src/daemon).
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildControlApp } from '../daemon/control-app.js';
import { createEventHub, type EventHub } from '../events/index.js';
import { createConnectorMCPRegistry } from '../registry/connector-mcp-registry.js';
import { registerDashboard } from './dashboard-routes.js';

const CONTROL_TOKEN = 'control-token-of-the-agents-route-tests';
const opened: { app: FastifyInstance; events: EventHub }[] = [];

afterEach(async () => {
  for (const { app, events } of opened.splice(0)) {
    events.close();
    await app.close();
  }
});

/** One installed agent as `GET /v1/agents` lists it. */
const LISTED = {
  id: 'fixture-agent',
  name: 'Fixture agent',
  version: '1.2.3',
  source: 'registry',
  provider: { registered: true },
  sizeBytes: 4096,
  installedAt: '2026-12-06T12:00:00.000Z',
};

/** What a stand-in control route was asked. */
interface Asked {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

/** A control app whose agent routes record what they are asked, and the dashboard, signed in. */
async function startDashboard() {
  let port = 0;
  const app = buildControlApp({ controlToken: CONTROL_TOKEN, port: () => port });
  const asked: Asked[] = [];
  const record = (request: { method: string; url: string; headers: Record<string, unknown> }) =>
    asked.push({
      method: request.method,
      url: request.url,
      authorization: request.headers.authorization as string | undefined,
      body: (request as { body?: unknown }).body,
    });
  app.get('/v1/agents', async (request) => {
    record(request);
    return { agents: [LISTED] };
  });
  app.post('/v1/agents/install', async (request, reply) => {
    record(request);
    const body = request.body as { id?: string };
    if (body.id === 'unknown') {
      return reply.code(404).send({
        error: { code: 'TUTTI_ERR_AGENT_NOT_IN_INDEX', message: 'No agent unknown in the index.' },
      });
    }
    return { agent: LISTED };
  });
  app.delete('/v1/agents/:id', async (request, reply) => {
    record(request);
    if ((request.params as { id: string }).id === 'busy agent') {
      return reply.code(409).send({
        error: { code: 'TUTTI_ERR_AGENT_IN_USE', message: 'Sessions of busy agent run.' },
      });
    }
    return { removed: true };
  });
  const events = createEventHub();
  const dashboard = registerDashboard(app, {
    controlToken: CONTROL_TOKEN,
    port: () => port,
    registry: createConnectorMCPRegistry(),
    runtime: { events: () => [] },
    events,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  opened.push({ app, events });
  const origin = `http://127.0.0.1:${port}`;
  const code = new URL(dashboard.loginLink().url).hash.replace(/^#login=/, '');
  const login = await fetch(`${origin}/dashboard/login`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const { token } = (await login.json()) as { token: string };
  /** `method /dashboard/api<path>` from the page's origin, with `authorization` (default: the session). */
  const page = async (
    method: string,
    path: string,
    body?: unknown,
    authorization = `Bearer ${token}`,
  ) => {
    const answer = await fetch(`${origin}/dashboard/api${path}`, {
      method,
      headers: {
        origin,
        authorization,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test's assertions
    return { status: answer.status, body: (await answer.json()) as any };
  };
  return { asked, page };
}

describe('/dashboard/api/agents', () => {
  it('lists the installed agents as GET /v1/agents answers them', async () => {
    const d = await startDashboard();
    const answer = await d.page('GET', '/agents');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ agents: [LISTED] });
    expect(d.asked).toEqual([
      {
        method: 'GET',
        url: '/v1/agents',
        authorization: `Bearer ${CONTROL_TOKEN}`,
        body: undefined,
      },
    ]);
  });

  it('passes an install with its body as the page sent it, and answers its refusal', async () => {
    const d = await startDashboard();
    const entry = { id: 'fixture-agent', version: '1.2.3', distribution: { npx: {} } };
    const installed = await d.page('POST', '/agents/install', {
      entry,
      allowInstallScripts: true,
    });
    expect(installed.status).toBe(200);
    expect(installed.body).toEqual({ agent: LISTED });
    expect(d.asked[0]).toMatchObject({
      method: 'POST',
      url: '/v1/agents/install',
      body: { entry, allowInstallScripts: true },
    });
    const refused = await d.page('POST', '/agents/install', { id: 'unknown' });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toEqual({
      code: 'TUTTI_ERR_AGENT_NOT_IN_INDEX',
      message: 'No agent unknown in the index.',
    });
  });

  it('passes a removal of the encoded id, and answers the 409 of an agent in use', async () => {
    const d = await startDashboard();
    expect(await d.page('DELETE', '/agents/fixture-agent')).toEqual({
      status: 200,
      body: { removed: true },
    });
    const busy = await d.page('DELETE', `/agents/${encodeURIComponent('busy agent')}`);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('TUTTI_ERR_AGENT_IN_USE');
    expect(busy.body.error.message).toBe('Sessions of busy agent run.');
    expect(d.asked.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'DELETE /v1/agents/fixture-agent',
      'DELETE /v1/agents/busy%20agent',
    ]);
  });

  it('answers 401 without a dashboard session, the control token included, and asks nothing', async () => {
    const d = await startDashboard();
    for (const authorization of ['', `Bearer ${CONTROL_TOKEN}`]) {
      for (const [method, path, body] of [
        ['GET', '/agents'],
        ['POST', '/agents/install', { id: 'fixture-agent' }],
        ['DELETE', '/agents/fixture-agent'],
      ] as const) {
        const answer = await d.page(method, path, body, authorization);
        expect(answer.status).toBe(401);
        expect(answer.body.error).toMatchObject({ code: 'TUTTI_ERR_DASHBOARD_SIGNED_OUT' });
      }
    }
    expect(d.asked).toEqual([]);
  });
});
