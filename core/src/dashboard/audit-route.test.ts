/**
 * `GET /dashboard/api/audit` on a real control app over a loopback socket: it passes the
 * page's query string, as it came, to `GET /v1/audit` and answers that endpoint's page or
 * error; without a dashboard session it answers 401 and asks nothing.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditPage, AuditQuery, AuditRecord } from '../audit/index.js';
import { registerAuditEndpoint } from '../daemon/audit-endpoint.js';
import { buildControlApp } from '../daemon/control-app.js';
import { createEventHub, type EventHub } from '../events/index.js';
import { createConnectorMCPRegistry } from '../registry/connector-mcp-registry.js';
import { registerDashboard } from './dashboard-routes.js';

const CONTROL_TOKEN = 'control-token-of-the-audit-route-tests';
const opened: { app: FastifyInstance; events: EventHub }[] = [];

afterEach(async () => {
  for (const { app, events } of opened.splice(0)) {
    events.close();
    await app.close();
  }
});

const RECORD: AuditRecord = {
  seq: 7,
  time: '2026-12-06T10:00:00.000Z',
  workspace: 'ws',
  session: 'session-1',
  provider: 'acp',
  tool: 'echo_fail',
  connector: 'echo',
  upstreamTool: 'fail',
  generation: 1,
  protocol: '2025-06-18',
  durationMs: 3,
  outcome: 'tool_error',
  argBytes: 2,
  resultBytes: 40,
  argDigest: `sha256:${'0'.repeat(64)}`,
};

/** A control app with the audit endpoint over `page`, and the dashboard; the queries asked. */
async function startDashboard(page: AuditPage) {
  let port = 0;
  const app = buildControlApp({ controlToken: CONTROL_TOKEN, port: () => port });
  const asked: AuditQuery[] = [];
  registerAuditEndpoint(app, {
    query: async (query) => {
      asked.push(query);
      return page;
    },
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
  /** `GET /dashboard/api/audit<query>` with `headers` (default: the session's token). */
  const audit = async (query: string, headers = { authorization: `Bearer ${token}` }) => {
    const answer = await fetch(`${origin}/dashboard/api/audit${query}`, { headers });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  return { asked, audit };
}

describe('GET /dashboard/api/audit', () => {
  it("passes the page's query to GET /v1/audit and answers its page", async () => {
    const d = await startDashboard({ records: [RECORD], nextBefore: 7 });
    const answer = await d.audit('?connector=echo&outcome=tool_error&after=3&limit=50');
    expect(answer).toEqual({ status: 200, body: { records: [RECORD], nextBefore: 7 } });
    expect(d.asked).toEqual([{ connector: 'echo', outcome: 'tool_error', after: 3, limit: 50 }]);
    expect(await d.audit('')).toEqual({ status: 200, body: { records: [RECORD], nextBefore: 7 } });
    expect(d.asked[1]).toEqual({});
  });

  it("answers a bad query with the control API's error, naming the field", async () => {
    const d = await startDashboard({ records: [] });
    const answer = await d.audit('?outcome=exploded');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'TUTTI_ERR_CONTROL_BAD_REQUEST' });
    expect(JSON.stringify(answer.body)).toContain('outcome');
    expect((await d.audit('?limit=1001')).status).toBe(400);
    expect(d.asked).toEqual([]);
  });

  it('answers 401 without a dashboard session, the control token included, and asks nothing', async () => {
    const d = await startDashboard({ records: [RECORD] });
    for (const headers of [{}, { authorization: `Bearer ${CONTROL_TOKEN}` }]) {
      const answer = await d.audit('?connector=echo', headers as { authorization: string });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toMatchObject({ code: 'TUTTI_ERR_DASHBOARD_SIGNED_OUT' });
    }
    expect(d.asked).toEqual([]);
  });
});
