/**
 * Traces of tool calls across the three hops, with a real tuttid, real stdio and HTTP
 * upstreams and a loopback OTLP receiver: the agent's `_meta.traceparent` is the parent
 * of the daemon's SERVER span, whose CLIENT span's context reaches the upstream in its
 * `_meta` (and, over HTTP, its headers); failed calls are marked with `error.type`;
 * malformed trace context starts a new trace and the call still works; baggage passes only
 * when allowed; and without an endpoint nothing is sent and no exporter code loads.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanUp,
  mcpRequest,
  RECORD_MODULES,
  tempDir,
  tempHomes,
  writeRelease,
} from '@tutti/test-kit';
import { startHttpUpstream } from '@tutti/test-kit/http-upstream';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '@tutti/test-kit/otlp-receiver';
import { sessionBinding, startTuttid, stopAll, waitForConnector } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tutti-traces-');
const receivers: OtlpReceiver[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await stopAll();
  for (const close of closers.splice(0)) await close();
  for (const receiver of receivers.splice(0)) await receiver.close();
  await homes.removeAll();
  await cleanUp();
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const AGENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${AGENT_SPAN}-01`;

async function receiver(): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver();
  receivers.push(started);
  return started;
}

/**
 * A tuttid started with `args` (and `env`) serving the stdio fixture as connector `kit`,
 * and the binding of a session `id`.
 */
async function kitDaemon(id: string, args: string[], env?: Record<string, string>) {
  const home = await homes.make();
  const daemon = await startTuttid(home, ['--no-demo', ...args], env ? { env } : {});
  const release = await writeRelease({ key: 'kit', serverArgs: [] });
  await daemon.control('POST', '/v1/connectors/install', { path: release });
  await waitForConnector(daemon, 'kit');
  return { home, daemon, binding: await sessionBinding(daemon, id) };
}

/** The `_meta` the upstream's `echo` saw, from its result. */
function upstreamMeta(body: { result: { content: { text: string }[] } }): Record<string, string> {
  return JSON.parse(body.result.content[0]!.text).meta ?? {};
}

function byName(spans: readonly ReceivedSpan[], name: string): ReceivedSpan[] {
  return spans.filter((span) => span.name === name);
}

describe('traces across agent, daemon and upstream', () => {
  it('hangs the daemon SERVER and CLIENT spans under the agent trace and hands the upstream a new parent', async () => {
    const otlp = await receiver();
    const { home, daemon, binding } = await kitDaemon('traced', ['--otlp-endpoint', otlp.endpoint]);
    const meta = { traceparent: TRACEPARENT, tracestate: 'vendor=abc' };

    const ok = await mcpRequest(binding, 'tools/call', {
      name: 'kit_echo',
      arguments: { withMeta: true, secret: 'hunter2-value' },
      _meta: meta,
    });
    expect(ok.body.result.isError).toBeUndefined();
    const seen = upstreamMeta(ok.body);
    const [, traceId, parentId] = seen.traceparent!.split('-');
    expect(traceId).toBe(TRACE_ID);
    expect(parentId).not.toBe(AGENT_SPAN);
    expect(seen.tracestate).toBe('vendor=abc');

    const failed = await mcpRequest(binding, 'tools/call', {
      name: 'kit_fail',
      arguments: {},
      _meta: meta,
    });
    expect(failed.body.result.isError).toBe(true);
    const unknown = await mcpRequest(binding, 'tools/call', {
      name: 'kit_nothing',
      arguments: {},
      _meta: meta,
    });
    expect(unknown.body.error.code).toBe(-32602);

    const spans = await otlp.waitFor(
      (all) => all.filter((span) => span.traceId === TRACE_ID).length >= 5,
    );
    const server = byName(spans, 'tools/call kit_echo')[0]!;
    expect(server).toMatchObject({
      kind: 'server',
      traceId: TRACE_ID,
      parentSpanId: AGENT_SPAN,
      service: 'tuttid',
      status: { code: 'unset' },
    });
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'kit_echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-06-18',
      'network.transport': 'tcp',
      'tutti.connector.key': 'kit',
    });
    expect(typeof server.attributes['jsonrpc.request.id']).toBe('string');
    const client = byName(spans, 'tools/call echo')[0]!;
    expect(client).toMatchObject({
      kind: 'client',
      traceId: TRACE_ID,
      parentSpanId: server.spanId,
    });
    expect(client.spanId).toBe(parentId);
    expect(client.attributes).toMatchObject({
      'gen_ai.tool.name': 'echo',
      'network.transport': 'pipe',
      // The daemon talks to its upstream at the newest revision both know.
      'mcp.protocol.version': '2025-11-25',
    });

    const toolError = byName(spans, 'tools/call kit_fail')[0]!;
    expect(toolError.status.code).toBe('error');
    expect(toolError.attributes['error.type']).toBe('tool_error');
    expect(byName(spans, 'tools/call fail')[0]!.attributes['error.type']).toBe('tool_error');
    const unknownSpan = byName(spans, 'tools/call kit_nothing')[0]!;
    expect(unknownSpan.attributes['error.type']).toBe('-32602');
    // An unknown tool never reached an upstream: no CLIENT span for it.
    expect(spans.filter((span) => span.kind === 'client')).toHaveLength(2);
    // No argument value is in any span.
    expect(JSON.stringify(spans)).not.toContain('hunter2-value');

    // The audit holds exactly these three calls, newest first, in a 0600 file, no values.
    const audit = await daemon.control('GET', '/v1/audit?session=traced');
    expect(audit.status).toBe(200);
    expect(
      audit.body.records.map((record: { tool: string; outcome: string; traceId: string }) => [
        record.tool,
        record.outcome,
        record.traceId,
      ]),
    ).toEqual([
      ['kit_nothing', 'rpc_error', TRACE_ID],
      ['kit_fail', 'tool_error', TRACE_ID],
      ['kit_echo', 'ok', TRACE_ID],
    ]);
    expect(audit.body.records[2]).toMatchObject({
      workspace: 'ws',
      connector: 'kit',
      upstreamTool: 'echo',
      protocol: '2025-06-18',
    });
    expect(audit.body.records[0].code).toBe('TUTTI_ERR_REGISTRY_UNKNOWN_TOOL');
    const files = await readdir(join(home, 'audit'));
    expect(files).toEqual(['audit.jsonl']);
    const file = join(home, 'audit', 'audit.jsonl');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(3);
    const text = lines.join('\n');
    expect(text).not.toContain('hunter2-value');
    expect(text).not.toContain(binding.headers.Authorization!.slice('Bearer '.length));
    expect(JSON.parse(lines[0]!).argDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const metrics = await daemon.control('GET', '/metrics');
    expect(metrics.body).toContain('tutti_connector_tool_errors_total{connector="kit"} 1');
  });

  it('starts a new trace for malformed context, links an HTTP traceparent header, and passes baggage only when allowed', async () => {
    const otlp = await receiver();
    const { binding } = await kitDaemon('malformed', ['--otlp-endpoint', otlp.endpoint]);
    const bad = await mcpRequest(binding, 'tools/call', {
      name: 'kit_echo',
      arguments: { withMeta: true },
      _meta: {
        traceparent: `00-${'0'.repeat(32)}-${AGENT_SPAN}-01`,
        tracestate: 'not a state',
        baggage: 'user=alice',
      },
    });
    const seen = upstreamMeta(bad.body);
    expect(seen.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(seen.traceparent!.split('-')[1]).not.toBe('0'.repeat(32));
    expect(seen.tracestate).toBeUndefined();
    expect(seen.baggage).toBeUndefined();

    const headerTrace = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    await mcpRequest(
      { ...binding, headers: { ...binding.headers, traceparent: headerTrace } },
      'tools/call',
      { name: 'kit_echo', arguments: { withMeta: true } },
    );
    const spans = await otlp.waitFor((all) => byName(all, 'tools/call kit_echo').length >= 2);
    const linked = byName(spans, 'tools/call kit_echo').find((span) => span.links.length > 0)!;
    expect(linked.parentSpanId).toBeUndefined();
    expect(linked.traceId).not.toBe('a'.repeat(32));
    expect(linked.links).toEqual([{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) }]);
  });

  it('carries the context to an HTTP upstream in _meta and headers, with baggage when allowed', async () => {
    const otlp = await receiver();
    const upstream = await startHttpUpstream({ era: 'legacy' });
    closers.push(() => upstream.close());
    const home = await homes.make();
    const args = ['--no-demo', '--otlp-endpoint', otlp.endpoint, '--trace-baggage'];
    const daemon = await startTuttid(home, args);
    const release = join(await tempDir('tutti-remote-release-'), 'remote');
    await mkdir(release, { recursive: true });
    await writeFile(
      join(release, 'tutti-connector.json'),
      JSON.stringify({
        key: 'remote',
        name: 'Remote',
        description: 'An HTTP fixture.',
        version: '1.0.0',
        mcp: { url: upstream.url },
      }),
    );
    await daemon.control('POST', '/v1/connectors/install', { path: release });
    await waitForConnector(daemon, 'remote');
    const binding = await sessionBinding(daemon, 'http');
    const answer = await mcpRequest(binding, 'tools/call', {
      name: 'remote_echo',
      arguments: { withMeta: true },
      _meta: { traceparent: TRACEPARENT, baggage: 'tenant=acme' },
    });
    const seen = upstreamMeta(answer.body);
    expect(seen.traceparent!.split('-')[1]).toBe(TRACE_ID);
    expect(seen.baggage).toBe('tenant=acme');
    const request = upstream.requests.find(
      (entry: { traceparent?: string }) => entry.traceparent === seen.traceparent,
    );
    expect(request).toMatchObject({ baggage: 'tenant=acme' });
    const spans = await otlp.waitFor((all) => byName(all, 'tools/call echo').length >= 1);
    expect(byName(spans, 'tools/call echo')[0]!.attributes['network.transport']).toBe('tcp');
  });

  it('sends nothing and loads no exporter without an endpoint', async () => {
    const otlp = await receiver();
    const modules = join(await tempDir('tutti-modules-'), 'loaded.txt');
    // The OTEL variables are cleared: a daemon without an endpoint, the receiver listening.
    const { binding } = await kitDaemon('untraced', [], {
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      NODE_OPTIONS: `--import=${RECORD_MODULES}`,
      TUTTI_TEST_MODULE_LOG: modules,
    });
    const answer = await mcpRequest(binding, 'tools/call', {
      name: 'kit_echo',
      arguments: { withMeta: true },
      _meta: { traceparent: TRACEPARENT },
    });
    // The agent's context still reaches the upstream, unchanged.
    expect(upstreamMeta(answer.body).traceparent).toBe(TRACEPARENT);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(otlp.requests).toBe(0);
    const loaded = await readFile(modules, 'utf8');
    expect(loaded).toContain('/core/');
    expect(loaded).not.toContain('@opentelemetry');
  });

  it('loads the exporter when the OTEL variable names an endpoint', async () => {
    const otlp = await receiver();
    const home = await homes.make();
    const modules = join(await tempDir('tutti-modules-'), 'loaded.txt');
    await startTuttid(home, ['--no-demo'], {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        NODE_OPTIONS: `--import=${RECORD_MODULES}`,
        TUTTI_TEST_MODULE_LOG: modules,
      },
    });
    expect(await readFile(modules, 'utf8')).toContain('@opentelemetry/exporter-trace-otlp-http');
  });
});
