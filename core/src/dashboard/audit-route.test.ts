/**
 * `GET /dashboard/api/audit` on a real control app over a loopback socket, with a real
 * audit log in a temp folder: it passes the page's query string, as it came, to
 * `GET /v1/audit` and answers that endpoint's page (without captured values) or error;
 * without a dashboard session it answers 401 and asks nothing.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, tempDir } from '@tutti/test-kit';
import { type AuditEntry, type AuditLog, type AuditQuery, openAuditLog } from '../audit/index.js';
import { registerAuditEndpoint } from '../daemon/audit-endpoint.js';
import { buildControlApp } from '../daemon/control-app.js';
import { createEventHub, type EventHub } from '../events/index.js';
import { createConnectorMCPRegistry } from '../registry/connector-mcp-registry.js';
import { registerDashboard } from './dashboard-routes.js';

const CONTROL_TOKEN = 'control-token-of-the-audit-route-tests';
/** An argument value, kept by a log that captures values. */
const VALUE = 'captured-value-5be1';
const opened: { app: FastifyInstance; events: EventHub; log?: AuditLog }[] = [];

afterEach(async () => {
  for (const { app, events, log } of opened.splice(0)) {
    events.close();
    await app.close();
    await log?.close();
  }
  await cleanUp();
});

/** A call as the call path hands it over. */
function entry(connector: string, outcome: AuditEntry['outcome']): AuditEntry {
  return {
    time: new Date().toISOString(),
    workspace: 'ws',
    session: 'session-1',
    provider: 'acp',
    tool: `${connector}_echo`,
    connector,
    upstreamTool: 'echo',
    generation: 1,
    protocol: '2025-06-18',
    durationMs: 3,
    outcome,
    resultBytes: 40,
    args: { text: VALUE },
    callResult: { content: [{ type: 'text', text: VALUE }] },
  };
}

/**
 * A control app with the audit endpoint over a log of three calls that keeps values (none
 * with `audit: false`, as `tuttid --no-audit`), and the dashboard, signed in.
 */
async function startDashboard({ audit = true } = {}) {
  let port = 0;
  const app = buildControlApp({ controlToken: CONTROL_TOKEN, port: () => port });
  const asked: AuditQuery[] = [];
  const log = audit
    ? await openAuditLog({
        dir: join(await tempDir('tutti-audit-route-'), 'audit'),
        captureValues: true,
      })
    : undefined;
  log?.append(entry('alpha', 'ok'));
  log?.append(entry('alpha', 'tool_error'));
  log?.append(entry('beta', 'ok'));
  registerAuditEndpoint(
    app,
    log && {
      query: (query) => {
        asked.push(query);
        return log.query(query);
      },
    },
  );
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
  opened.push({ app, events, ...(log && { log }) });
  const origin = `http://127.0.0.1:${port}`;
  const code = new URL(dashboard.loginLink().url).hash.replace(/^#login=/, '');
  const login = await fetch(`${origin}/dashboard/login`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const { token } = (await login.json()) as { token: string };
  const get = async (path: string, headers: Record<string, string>) => {
    const answer = await fetch(`${origin}${path}`, { headers });
    // biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test's assertions
    return { status: answer.status, body: (await answer.json()) as any };
  };
  return {
    asked,
    /** `GET /dashboard/api/audit<query>` with `headers` (default: the session's token). */
    audit: (query: string, headers = { authorization: `Bearer ${token}` }) =>
      get(`/dashboard/api/audit${query}`, headers),
    /** `GET /v1/audit<query>` with the control token. */
    control: (query: string) =>
      get(`/v1/audit${query}`, { authorization: `Bearer ${CONTROL_TOKEN}` }),
  };
}

describe('GET /dashboard/api/audit', () => {
  it("passes the page's query to GET /v1/audit and answers its page", async () => {
    const d = await startDashboard();
    const answer = await d.audit('?connector=alpha&outcome=tool_error&after=0&limit=50');
    expect(answer.status).toBe(200);
    expect(d.asked).toEqual([{ connector: 'alpha', outcome: 'tool_error', after: 0, limit: 50 }]);
    expect(answer.body.records).toHaveLength(1);
    expect(answer.body.records[0]).toMatchObject({ seq: 2, connector: 'alpha' });
    const all = await d.audit('?limit=2');
    expect(all.body.records.map((record: { seq: number }) => record.seq)).toEqual([3, 2]);
    expect(all.body.nextBefore).toBe(2);
    expect(d.asked[1]).toEqual({ limit: 2 });
  });

  it('keeps the values a capturing log holds out of its answer', async () => {
    const d = await startDashboard();
    const control = await d.control('');
    expect(control.body.records[0].arguments).toContain(VALUE);
    expect(control.body.records[0].result).toContain(VALUE);
    const answer = await d.audit('');
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).not.toContain(VALUE);
    const stripped = control.body.records.map(
      ({ arguments: _a, result: _r, ...record }: Record<string, unknown>) => record,
    );
    expect(answer.body).toEqual({ records: stripped });
  });

  it("answers a bad query with the control API's error, naming the field", async () => {
    const d = await startDashboard();
    const answer = await d.audit('?outcome=exploded');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'TUTTI_ERR_CONTROL_BAD_REQUEST' });
    expect(answer.body.error.message).toContain('outcome');
    expect((await d.audit('?limit=1001')).status).toBe(400);
    expect(d.asked).toEqual([]);
  });

  it('says so when the daemon keeps no audit trail', async () => {
    const d = await startDashboard({ audit: false });
    const answer = await d.audit('');
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'TUTTI_ERR_CONTROL_AUDIT_OFF' });
  });

  it('answers 401 without a dashboard session, the control token included, and asks nothing', async () => {
    const d = await startDashboard();
    for (const headers of [{}, { authorization: `Bearer ${CONTROL_TOKEN}` }]) {
      const answer = await d.audit('?connector=alpha', headers as { authorization: string });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toMatchObject({ code: 'TUTTI_ERR_DASHBOARD_SIGNED_OUT' });
    }
    expect(d.asked).toEqual([]);
  });
});
