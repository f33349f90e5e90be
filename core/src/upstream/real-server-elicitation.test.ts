/**
 * A real third-party server asking the person and reporting progress over stdio:
 * `@modelcontextprotocol/server-everything` offers its elicitation tools only to a client
 * that declares elicitation, talks 2025-11-25 with the daemon, and asks in form and URL
 * mode through the raw stdio path.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { CallProgress, ElicitationRequest } from '../contracts/index.js';
import { stdioUpstreamsPerTest } from '@tutti/test-kit/core/stdio-upstreams-per-test';
import type { UpstreamConnection } from './types.js';

const require = createRequire(import.meta.url);
/** Resolved here: the test fails loudly when the package is not installed. */
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const openStdio = stdioUpstreamsPerTest();

function everything(): Promise<UpstreamConnection> {
  return openStdio([EVERYTHING, 'stdio'], { startTimeoutMs: 20_000 });
}

const texts = (content: unknown[]) =>
  content.map((block) => (block as { text?: string }).text ?? '').join('\n');

describe('server-everything over stdio', () => {
  it('talks 2025-11-25 and asks a form through the call, which gets the answer', async () => {
    const upstream = await everything();
    expect(upstream.protocolVersion).toBe('2025-11-25');
    const names = upstream.tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['trigger-elicitation-request', 'trigger-url-elicitation']),
    );
    const asked: ElicitationRequest[] = [];
    const result = await upstream.callTool(
      'trigger-elicitation-request',
      {},
      {
        elicit: async (request) => {
          asked.push(request);
          return { action: 'decline' };
        },
      },
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: 'form', requestedSchema: { type: 'object' } });
    expect(texts(result.content)).toContain('"action": "decline"');
  });

  it('asks for a URL to be opened (URL mode)', async () => {
    const upstream = await everything();
    const asked: ElicitationRequest[] = [];
    const result = await upstream.callTool(
      'trigger-url-elicitation',
      { url: 'https://example.com/verify' },
      {
        elicit: async (request) => {
          asked.push(request);
          return { action: 'accept' };
        },
      },
    );
    expect(asked).toEqual([
      expect.objectContaining({
        mode: 'url',
        url: 'https://example.com/verify',
        elicitationId: expect.any(String),
      }),
    ]);
    expect(result.isError).not.toBe(true);
  });

  it('reports the progress of a long operation in order', async () => {
    const upstream = await everything();
    const seen: CallProgress[] = [];
    await upstream.callTool(
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onProgress: (progress) => seen.push(progress) },
    );
    expect(seen.map(({ progress, total }) => [progress, total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });
});
