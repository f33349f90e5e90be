/**
 * A stdio upstream asking the person mid-call (elicitation) and reporting progress, against
 * the real fixture process: its `elicitation/create` reaches the call's `elicit` only when
 * that call is the only one in flight, its progress reaches the call's `onProgress`.
 */
import { join } from 'node:path';
import { UPSTREAM_FIXTURES } from '@tutti/test-kit';
import { describe, expect, it, vi } from 'vitest';
import type {
  CallProgress,
  ElicitationAnswer,
  ElicitationRequest,
  UpstreamCallResult,
} from '../contracts/index.js';
import { stdioUpstreamsPerTest } from '@tutti/test-kit/core/stdio-upstreams-per-test';
import type { StdioUpstreamOptions } from './open-stdio.js';
import type { UpstreamConnection, UpstreamLogger } from './types.js';

const openStdio = stdioUpstreamsPerTest();

/** A logger that keeps what it was told. */
function recordingLogger() {
  const warned: { object: object; message?: string }[] = [];
  const logger: UpstreamLogger = {
    debug() {},
    info() {},
    warn: (object, message) => void warned.push({ object, message }),
  };
  return { logger, warned };
}

function start(extra: Partial<StdioUpstreamOptions> = {}): Promise<UpstreamConnection> {
  return openStdio('stdio-server.mjs', extra);
}

function json(result: UpstreamCallResult): unknown {
  return JSON.parse((result.content[0] as { text: string }).text);
}

/** An `elicit` that records what it was asked and answers `answer`. */
function answering(answer: ElicitationAnswer) {
  const asked: ElicitationRequest[] = [];
  const elicit = async (request: ElicitationRequest) => {
    asked.push(request);
    return answer;
  };
  return { asked, elicit };
}

const confirmSchema = {
  type: 'object',
  properties: { confirm: { type: 'boolean', description: 'Delete them' } },
  required: ['confirm'],
};

describe('elicitation of a stdio upstream', () => {
  it('declares elicitation (form and URL) and talks 2025-11-25 with a server that knows it', async () => {
    const upstream = await start({ args: [join(UPSTREAM_FIXTURES, 'asking-server.mjs')] });
    const hello = json(await upstream.callTool('hello', {})) as Record<string, unknown>;
    expect(hello.protocolVersion).toBe('2025-11-25');
    expect(hello.capabilities).toEqual({ elicitation: { form: {}, url: {} } });
    expect(upstream.protocolVersion).toBe('2025-11-25');
  });

  it("relays the upstream's question to the call and gives the tool the person's answer", async () => {
    const upstream = await start();
    const { asked, elicit } = answering({ action: 'accept', content: { confirm: true } });
    const result = await upstream.callTool('confirm_delete', {}, { elicit });
    expect(json(result)).toEqual({ deleted: true });
    // Only the request's own members: the SDK server's `_meta` (a progress token) stays out.
    expect(asked).toEqual([
      { mode: 'form', message: 'Delete 40 files?', requestedSchema: confirmSchema },
    ]);
  });

  it('answers cancel at once when the call has no elicit', async () => {
    const upstream = await start();
    const started = Date.now();
    const result = await upstream.callTool('confirm_delete', {});
    expect(json(result)).toEqual({ deleted: false, action: 'cancel' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('answers cancel when elicit rejects', async () => {
    const upstream = await start();
    const elicit = vi.fn(async () => {
      throw new Error('nobody to ask');
    });
    const result = await upstream.callTool('confirm_delete', {}, { elicit });
    expect(json(result)).toEqual({ deleted: false, action: 'cancel' });
    expect(elicit).toHaveBeenCalledTimes(1);
  });

  it('passes a decline on as it is', async () => {
    const upstream = await start();
    const { elicit } = answering({ action: 'decline' });
    const result = await upstream.callTool('confirm_delete', {}, { elicit });
    expect(json(result)).toEqual({ deleted: false, action: 'decline' });
  });

  it('cancels a question that comes while two calls are in flight, and warns once', async () => {
    const { logger, warned } = recordingLogger();
    const upstream = await start({ logger });
    const first = answering({ action: 'accept', content: { confirm: true } });
    const second = answering({ action: 'accept', content: { confirm: true } });
    for (let round = 0; round < 2; round += 1) {
      const results = await Promise.all([
        upstream.callTool('confirm_delete', { files: 1 }, { elicit: first.elicit }),
        upstream.callTool('confirm_delete', { files: 2 }, { elicit: second.elicit }),
      ]);
      expect(results.map(json)).toEqual([
        { deleted: false, action: 'cancel' },
        { deleted: false, action: 'cancel' },
      ]);
    }
    // Neither call saw a question: it could have been the other one's.
    expect([...first.asked, ...second.asked]).toEqual([]);
    const ambiguous = warned.filter(({ message }) => message?.includes('several calls'));
    expect(ambiguous).toHaveLength(1);
    expect(JSON.stringify(ambiguous)).not.toContain('Delete');
  });

  it('with serializeCalls, gives each of two concurrent calls its own question', async () => {
    const upstream = await start({ serializeCalls: true });
    const first = answering({ action: 'accept', content: { confirm: true } });
    const second = answering({ action: 'decline' });
    const results = await Promise.all([
      upstream.callTool('confirm_delete', { files: 1 }, { elicit: first.elicit }),
      upstream.callTool('confirm_delete', { files: 2 }, { elicit: second.elicit }),
    ]);
    expect(results.map(json)).toEqual([{ deleted: true }, { deleted: false, action: 'decline' }]);
    expect(first.asked.map((request) => request.message)).toEqual(['Delete 1 files?']);
    expect(second.asked.map((request) => request.message)).toEqual(['Delete 2 files?']);
  });

  it("with serializeCalls, counts a queued call's timeout from when it is sent", async () => {
    const upstream = await start({ serializeCalls: true, callTimeoutMs: 1500 });
    // Together they take longer than the timeout; each alone well within it.
    const results = await Promise.all([
      upstream.callTool('sleep', { ms: 900 }),
      upstream.callTool('sleep', { ms: 900 }),
    ]);
    expect(results.map((result) => (result.content[0] as { text: string }).text)).toEqual([
      'slept',
      'slept',
    ]);
  });

  it('relays a URL-mode question with its URL and id', async () => {
    const upstream = await start();
    const { asked, elicit } = answering({ action: 'accept' });
    const result = await upstream.callTool('open_link', {}, { elicit });
    expect(json(result)).toEqual({ action: 'accept' });
    expect(asked).toEqual([
      {
        mode: 'url',
        message: 'Sign in to continue',
        url: 'https://example.com/connect',
        elicitationId: expect.any(String),
      },
    ]);
  });
});

describe('progress of a stdio upstream', () => {
  it('reaches onProgress in order, and the upstream gets no token without it', async () => {
    const upstream = await start();
    const seen: CallProgress[] = [];
    const result = await upstream.callTool('progress', {}, { onProgress: (p) => seen.push(p) });
    expect((result.content[0] as { text: string }).text).toBe('done');
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    expect(json(await upstream.callTool('progress', { echoToken: true }))).toEqual({
      token: null,
    });
  });

  it('puts the progress token beside the trace members of _meta', async () => {
    const upstream = await start();
    const traceparent = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
    const result = await upstream.callTool(
      'echo',
      { withMeta: true },
      { meta: { traceparent }, onProgress: () => {} },
    );
    const { meta } = json(result) as { meta: Record<string, unknown> };
    expect(meta).toEqual({ traceparent, progressToken: expect.any(String) });
  });

  it('gives two concurrent calls each their own progress', async () => {
    const upstream = await start();
    const seen: string[] = [];
    await Promise.all(
      ['a', 'b'].map((name) =>
        upstream.callTool('progress', {}, { onProgress: (p) => seen.push(`${name}${p.progress}`) }),
      ),
    );
    expect(seen.filter((entry) => entry.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(seen.filter((entry) => entry.startsWith('b'))).toEqual(['b1', 'b2', 'b3']);
  });
});
