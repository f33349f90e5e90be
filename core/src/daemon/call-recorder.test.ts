import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../audit/index.js';
import type { ConnectorApp } from '../server/connector-app.js';
import { createPassThroughTracer } from '../telemetry/pass-through.js';
import { formatTraceparent, type TraceContext } from '../telemetry/trace-context.js';
import type { Tracer } from '../telemetry/types.js';
import { recordingTracer } from '@tutti/test-kit/core/recording-tracer';
import {
  createApp,
  createWorld,
  legacyHeaders,
  modernRequest,
  type World,
} from '@tutti/test-kit/core/server-world';
import { createCallRecorder, type RecordedSessions } from './call-recorder.js';

const AGENT: TraceContext = { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), flags: 1 };
const TURN: TraceContext = { traceId: 'ef'.repeat(16), spanId: '12'.repeat(8), flags: 1 };

describe('the call recorder', () => {
  let world: World;
  let server: ConnectorApp | undefined;
  const entries: AuditEntry[] = [];
  const turnAsked: string[] = [];
  const sessions: RecordedSessions = {
    providerOf: (id) => (id === 'sess-1' ? 'codex' : undefined),
    toolCallParent: (id, tool) => {
      turnAsked.push(`${id}:${tool}`);
      return TURN;
    },
  };

  afterEach(async () => {
    entries.length = 0;
    turnAsked.length = 0;
    server?.shutdown();
    await server?.app.close();
  });

  function start(tracer: Tracer) {
    world = createWorld();
    server = createApp(world, {
      observer: createCallRecorder({ tracer, audit: { append: (e) => entries.push(e) }, sessions }),
    });
    return server;
  }

  function legacyCall(app: ConnectorApp, params: Record<string, unknown>, extra = {}) {
    return app.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers: { ...legacyHeaders(world.token), ...extra },
      payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params },
    });
  }

  it('hangs a 2026-07-28 call under its _meta traceparent and hands the upstream the CLIENT span', async () => {
    const { tracer, spans } = recordingTracer();
    const app = start(tracer);
    const { headers, payload } = modernRequest(world.token, 3, 'tools/call', {
      name: 'gh_search',
      arguments: { q: 'x' },
    });
    const body = payload as { params: { _meta: Record<string, unknown> } };
    body.params._meta = { ...body.params._meta, traceparent: formatTraceparent(AGENT) };
    const res = await app.app.inject({
      method: 'POST',
      url: '/mcp/connector',
      headers,
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    const [serverSpan, clientSpan] = spans;
    expect(serverSpan).toMatchObject({
      name: 'tools/call gh_search',
      kind: 'server',
      parent: AGENT.spanId,
      context: { traceId: AGENT.traceId },
    });
    expect(serverSpan!.attributes).toMatchObject({
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': '3',
    });
    expect(clientSpan).toMatchObject({
      name: 'tools/call search',
      kind: 'client',
      parent: serverSpan!.context.spanId,
      context: { traceId: AGENT.traceId },
    });
    expect(world.gh.calls[0]!.meta).toEqual({
      traceparent: formatTraceparent(clientSpan!.context),
    });
    expect(spans.every((span) => span.ended)).toBe(true);
    expect(turnAsked).toEqual([]);
    expect(entries[0]).toMatchObject({
      protocol: '2026-07-28',
      outcome: 'ok',
      traceId: AGENT.traceId,
    });
  });

  it('hangs a call without trace context under its session turn, and records who called what', async () => {
    const { tracer, spans } = recordingTracer();
    const app = start(tracer);
    await legacyCall(app, { name: 'gh_search', arguments: { q: 'secret-value' } });
    expect(turnAsked).toEqual(['sess-1:gh_search']);
    expect(spans[0]).toMatchObject({ parent: TURN.spanId, context: { traceId: TURN.traceId } });
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    expect(entry).toMatchObject({
      workspace: 'ws-1',
      session: 'sess-1',
      provider: 'codex',
      tool: 'gh_search',
      connector: 'gh',
      upstreamTool: 'search',
      generation: 1,
      protocol: '2025-06-18',
      outcome: 'ok',
      traceId: TURN.traceId,
      args: { q: 'secret-value' },
    });
    expect(entry.resultBytes).toBeGreaterThan(0);
    expect(entry.callResult).toBeUndefined();
    expect(Date.parse(entry.time)).toBeLessThanOrEqual(Date.now());
  });

  it('names each way a call ends, and marks the spans failed', async () => {
    const { tracer, spans } = recordingTracer();
    const app = start(tracer);
    const meta = { _meta: { traceparent: formatTraceparent(AGENT) } };
    await legacyCall(app, { name: 'gh_fail', arguments: {}, ...meta });
    await legacyCall(app, { name: 'gh_nothing', arguments: {}, ...meta });
    await legacyCall(app, { name: 'gh_crash', arguments: {}, ...meta });
    await legacyCall(app, { name: 'gh_search', arguments: 'not an object', ...meta });
    const slow = legacyCall(app, { name: 'gh_slow', arguments: {}, ...meta });
    await world.gh.called('slow');
    server!.shutdown();
    await slow;
    expect(entries.map((entry) => [entry.tool, entry.outcome, entry.code, entry.rpcCode])).toEqual([
      ['gh_fail', 'tool_error', undefined, undefined],
      ['gh_nothing', 'rpc_error', 'TUTTI_ERR_REGISTRY_UNKNOWN_TOOL', -32602],
      ['gh_crash', 'rpc_error', 'TUTTI_ERR_UPSTREAM_CALL_FAILED', -32603],
      ['gh_search', 'rpc_error', undefined, -32602],
      ['gh_slow', 'cancelled', 'TUTTI_ERR_UPSTREAM_CANCELLED', -32603],
    ]);
    const errors = spans.filter((span) => span.kind === 'server').map((span) => span.failed);
    expect(errors).toEqual(['tool_error', '-32602', '-32603', '-32602', '-32603']);
    const client = spans.filter((span) => span.kind === 'client').map((span) => span.failed);
    expect(client).toEqual([
      'tool_error',
      'TUTTI_ERR_UPSTREAM_CALL_FAILED',
      'TUTTI_ERR_UPSTREAM_CANCELLED',
    ]);
    expect(spans.every((span) => span.ended)).toBe(true);
  });

  it('passes the agent context on unchanged with tracing off, and asks no turn', async () => {
    const app = start(createPassThroughTracer());
    const traceparent = formatTraceparent(AGENT);
    await legacyCall(app, {
      name: 'gh_search',
      arguments: {},
      _meta: { traceparent, tracestate: 'a=b' },
    });
    expect(world.gh.calls[0]!.meta).toEqual({ traceparent, tracestate: 'a=b' });
    await legacyCall(app, { name: 'gh_search', arguments: {} });
    expect(world.gh.calls[1]!.meta).toBeUndefined();
    expect(turnAsked).toEqual([]);
    expect(entries.map((entry) => entry.traceId)).toEqual([AGENT.traceId, undefined]);
  });
});
