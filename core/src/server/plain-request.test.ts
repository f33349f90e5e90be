import { classifyInboundRequest, isJSONRPCRequest } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENVELOPE } from './test-support/fixtures.js';
import { isPlainLegacyRequest, isPlainRequest } from './plain-request.js';

const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'gh_search' } };

describe('isPlainRequest', () => {
  it('takes a strict JSON-RPC request with or without params', () => {
    expect(isPlainRequest(call)).toBe(true);
    expect(isPlainRequest({ jsonrpc: '2.0', id: 'a', method: 'ping' })).toBe(true);
  });

  it.each([
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a response', { jsonrpc: '2.0', id: 1, result: {} }],
    ['a batch', [call]],
    ['a wrong version', { ...call, jsonrpc: '1.0' }],
    ['a fractional id', { ...call, id: 1.5 }],
    ['a null id', { ...call, id: null }],
    ['an unsafe integer id', { ...call, id: 2 ** 60 }],
    ['a non-string method', { ...call, method: 3 }],
    ['array params', { ...call, params: [] }],
    ['null params', { ...call, params: null }],
    ['an extra member', { ...call, extra: true }],
    ['any _meta', { ...call, params: { name: 'x', _meta: {} } }],
    ['a 2026 envelope', { ...call, params: { name: 'x', _meta: ENVELOPE } }],
  ])('leaves %s to the SDK', (_what, body) => {
    expect(isPlainRequest(body)).toBe(false);
  });
});

describe('isPlainLegacyRequest', () => {
  it('takes a plain request with no or a 2025-era protocol header only', () => {
    expect(isPlainLegacyRequest(call, undefined)).toBe(true);
    expect(isPlainLegacyRequest(call, '2025-06-18')).toBe(true);
    expect(isPlainLegacyRequest(call, '2026-07-28')).toBe(false);
    expect(isPlainLegacyRequest(call, ' 2025-06-18')).toBe(false);
    expect(isPlainLegacyRequest(call, 'garbage')).toBe(false);
  });

  it('takes only bodies the SDK also routes to the legacy surface as valid requests', () => {
    const id = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null));
    const meta = fc.oneof(fc.constant(ENVELOPE), fc.dictionary(fc.string(), fc.jsonValue()));
    const params = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.array(fc.jsonValue(), { maxLength: 2 }),
      fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
      fc.record({ name: fc.string(), _meta: meta }),
    );
    const body = fc.oneof(
      fc.record(
        {
          jsonrpc: fc.oneof(fc.constant('2.0'), fc.string()),
          id,
          method: fc.oneof(fc.constantFrom('initialize', 'tools/call', 'ping'), fc.string()),
          params,
          extra: fc.jsonValue(),
        },
        { requiredKeys: ['jsonrpc'] },
      ),
      fc.jsonValue(),
    );
    const header = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', '2026-07-28', '2025-11-25'),
      fc.string(),
    );
    fc.assert(
      fc.property(body, header, (message, protocolVersionHeader) => {
        const plain = JSON.parse(JSON.stringify(message) ?? 'null');
        if (!isPlainLegacyRequest(plain, protocolVersionHeader)) return;
        expect(isJSONRPCRequest(plain)).toBe(true);
        const route = classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader,
          mcpMethodHeader: undefined,
          mcpNameHeader: undefined,
          body: plain,
        });
        expect(route.kind).toBe('legacy');
        expect(['no-claim', 'initialize']).toContain((route as { reason: string }).reason);
      }),
      { numRuns: 2000 },
    );
  });

  it('is true for enough generated plain requests to make the property above bite', () => {
    const plain = fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.string(), fc.integer()),
      method: fc.string(),
      params: fc.dictionary(
        fc.string().filter((key) => key !== '_meta'),
        fc.jsonValue(),
      ),
    });
    fc.assert(
      fc.property(plain, (message) => {
        const body = JSON.parse(JSON.stringify(message));
        expect(isPlainLegacyRequest(body, undefined)).toBe(isJSONRPCRequest(body));
      }),
      { numRuns: 500 },
    );
  });
});
