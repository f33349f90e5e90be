import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UpstreamCallResult } from '../contracts/index.js';
import { callResultJson } from './call-result-json.js';
import { SERVER_INFO } from './constants.js';

const CONNECTOR_INFO = expect.objectContaining({ name: 'connector' });

/** What the result must be: the upstream members in order, then resultType, then _meta. */
function reference(result: UpstreamCallResult): string {
  const stamped: Record<string, unknown> = { ...result, resultType: 'complete' };
  const meta = result._meta;
  if (meta === undefined || (typeof meta === 'object' && meta !== null && !Array.isArray(meta))) {
    stamped._meta = { [SERVER_INFO_META_KEY]: SERVER_INFO, ...meta };
  }
  return JSON.stringify(stamped);
}

describe('callResultJson', () => {
  it('appends resultType and the server info after the upstream members', () => {
    const text = callResultJson({ content: [{ type: 'text', text: 'hi' }], isError: false });
    expect(Object.keys(JSON.parse(text))).toEqual(['content', 'isError', 'resultType', '_meta']);
    expect(JSON.parse(text)).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      isError: false,
      resultType: 'complete',
      _meta: { [SERVER_INFO_META_KEY]: CONNECTOR_INFO },
    });
  });

  it("merges the server info into the upstream's own _meta and keeps its resultType key place", () => {
    const withMeta = JSON.parse(callResultJson({ content: [], _meta: { trace: 't-1' } }));
    expect(withMeta._meta).toEqual({ [SERVER_INFO_META_KEY]: CONNECTOR_INFO, trace: 't-1' });
    const withType = callResultJson({ resultType: 'x', content: [] } as UpstreamCallResult);
    expect(Object.keys(JSON.parse(withType))).toEqual(['resultType', 'content', '_meta']);
    expect(JSON.parse(withType).resultType).toBe('complete');
  });

  it('gives the same text as building the stamped object, for any result', () => {
    const value = fc.jsonValue({ maxDepth: 2 });
    const result = fc.record(
      {
        content: fc.array(value, { maxLength: 3 }),
        structuredContent: fc.dictionary(fc.string(), value, { maxKeys: 3 }),
        isError: fc.boolean(),
        _meta: fc.oneof(fc.dictionary(fc.string(), value, { maxKeys: 3 }), fc.constant(undefined)),
        resultType: fc.string(),
        extra: value,
        '7': value,
      },
      { requiredKeys: ['content'] },
    );
    fc.assert(
      fc.property(result, (r) => {
        expect(callResultJson(r as UpstreamCallResult)).toBe(reference(r as UpstreamCallResult));
      }),
      { numRuns: 500 },
    );
  });
});
