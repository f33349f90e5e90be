/**
 * How the daemon exports spans, in-process: what waits in the export queue is sent when
 * the daemon stops, and a collector that is down holds up neither the calls nor the stop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '@tutti/core';
import { cleanUp, mcpRequest, tempDir, writeRelease } from '@tutti/test-kit';
import { freePort } from '@tutti/test-kit/free-port';
import { type OtlpReceiver, startOtlpReceiver } from '@tutti/test-kit/otlp-receiver';

let daemon: Daemon | undefined;
let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  await receiver?.close();
  receiver = undefined;
  await cleanUp();
});

/** A daemon tracing to `endpoint` (export delay one minute) serving the fixture `kit`. */
async function tracedDaemon(endpoint: string, sampleRatio?: number) {
  const home = await tempDir('tutti-trace-export-');
  daemon = await startDaemon({
    home,
    tracing: { endpoint, exportDelayMs: 60_000, ...(sampleRatio !== undefined && { sampleRatio }) },
  });
  const headers = {
    authorization: `Bearer ${daemon.info.controlToken}`,
    'content-type': 'application/json',
  };
  const path = await writeRelease({ key: 'kit', serverArgs: [] });
  await fetch(`${daemon.info.controlUrl}/v1/connectors/install`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ path, wait: true }),
  });
  const session = await fetch(`${daemon.info.controlUrl}/v1/sessions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ workspaceId: 'ws', agentSessionId: 'export', cwd: home }),
  });
  const { runtime } = (await session.json()) as {
    runtime: { mcpServers: { headers: Record<string, string> }[] };
  };
  return { url: daemon.mcpUrl, headers: runtime.mcpServers[0]!.headers };
}

describe('span export', () => {
  it('sends the spans still waiting when the daemon stops', async () => {
    receiver = await startOtlpReceiver();
    const binding = await tracedDaemon(receiver.tracesUrl);
    for (let n = 0; n < 3; n += 1) {
      const answer = await mcpRequest(binding, 'tools/call', {
        name: 'kit_echo',
        arguments: { n },
      });
      expect(answer.body.result).toBeDefined();
    }
    // The export delay is a minute: nothing went out yet.
    expect(receiver.requests).toBe(0);
    await daemon!.close();
    daemon = undefined;
    expect(receiver.spans.filter((span) => span.name === 'tools/call kit_echo')).toHaveLength(3);
    expect(receiver.spans.filter((span) => span.name === 'tools/call echo')).toHaveLength(3);
  });

  it('records new traces at the sample ratio and keeps the agent decision', async () => {
    receiver = await startOtlpReceiver();
    const binding = await tracedDaemon(receiver.tracesUrl, 0);
    const unsampled = await mcpRequest(binding, 'tools/call', {
      name: 'kit_echo',
      arguments: { withMeta: true },
    });
    // Not recorded, but the upstream still gets a context (not sampled) to join.
    const meta = JSON.parse(unsampled.body.result.content[0].text).meta;
    expect(meta.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    const traceId = 'c'.repeat(32);
    await mcpRequest(binding, 'tools/call', {
      name: 'kit_echo',
      arguments: {},
      _meta: { traceparent: `00-${traceId}-${'d'.repeat(16)}-01` },
    });
    await daemon!.close();
    daemon = undefined;
    expect(receiver.spans.map((span) => [span.name, span.traceId])).toEqual([
      ['tools/call echo', traceId],
      ['tools/call kit_echo', traceId],
    ]);
  });

  it('answers calls and stops with a collector that is not there', async () => {
    const binding = await tracedDaemon(`http://127.0.0.1:${await freePort()}/v1/traces`);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        mcpRequest(binding, 'tools/call', { name: 'kit_echo', arguments: { n } }, { id: n + 1 }),
      ),
    );
    expect(answers.every((answer) => answer.body.result !== undefined)).toBe(true);
    await daemon!.close();
    daemon = undefined;
  });
});
