import { classifyInboundRequest, isJSONRPCRequest } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createEnvelopeVerdicts,
  isPlainLegacyRequest,
  isPlainModernRequest,
  isPlainRequest,
} from './inbound-message.js';
import { ENVELOPE } from '@tutti/test-kit/core/server-world';

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

const VERSION = '2026-07-28';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const modernCall = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'gh_search', arguments: { q: 'x' }, _meta: ENVELOPE },
};

function routeOf(body: unknown, version: string | undefined, method: string | undefined) {
  return classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: version,
    mcpMethodHeader: method,
    mcpNameHeader: undefined,
    body,
  });
}

describe('isPlainModernRequest', () => {
  it('takes a tools/call or tools/list with a valid envelope and matching headers', () => {
    expect(isPlainModernRequest(modernCall, VERSION, 'tools/call', createEnvelopeVerdicts())).toBe(
      true,
    );
    const list = { jsonrpc: '2.0', id: 'l', method: 'tools/list', params: { _meta: ENVELOPE } };
    expect(isPlainModernRequest(list, VERSION, 'tools/list', createEnvelopeVerdicts())).toBe(true);
  });

  it.each([
    ['no protocol header', modernCall, undefined, 'tools/call'],
    ['a 2025 protocol header', modernCall, '2025-06-18', 'tools/call'],
    ['a padded protocol header', modernCall, ` ${VERSION}`, 'tools/call'],
    ['no method header', modernCall, VERSION, undefined],
    ['a mismatched method header', modernCall, VERSION, 'tools/list'],
    ['another method', { ...modernCall, method: 'server/discover' }, VERSION, 'server/discover'],
    ['an extra member', { ...modernCall, extra: 1 }, VERSION, 'tools/call'],
    ['a fractional id', { ...modernCall, id: 1.5 }, VERSION, 'tools/call'],
    ['no params', { ...modernCall, params: undefined }, VERSION, 'tools/call'],
    ['no _meta', { ...modernCall, params: { name: 'gh_search' } }, VERSION, 'tools/call'],
    [
      'another claimed version',
      withMeta({ 'io.modelcontextprotocol/protocolVersion': '2027-01-01' }),
      VERSION,
      'tools/call',
    ],
    ['an envelope without capabilities', withMeta({ [CAPS]: undefined }), VERSION, 'tools/call'],
    ['a malformed clientInfo', withMeta({ [INFO]: { name: 3 } }), VERSION, 'tools/call'],
    ['a fractional progress token', withMeta({ progressToken: 1.5 }), VERSION, 'tools/call'],
    [
      'a null in the envelope',
      withMeta({ [INFO]: { name: 'a', version: '1', title: null } }),
      VERSION,
      'tools/call',
    ],
  ])('leaves %s to the SDK', (_what, body, version, method) => {
    expect(isPlainModernRequest(body, version, method, createEnvelopeVerdicts())).toBe(false);
  });

  it('takes only requests the SDK routes to the modern surface as the same request', () => {
    const capabilities = fc.oneof(
      fc.constant({}),
      fc.constant({ roots: { listChanged: true } }),
      fc.dictionary(fc.constantFrom('roots', 'sampling', 'elicitation', 'x'), fc.jsonValue()),
      fc.jsonValue(),
    );
    const meta = fc.oneof(
      { weight: 4, arbitrary: fc.constant(ENVELOPE) },
      {
        weight: 3,
        arbitrary: fc.record(
          {
            'io.modelcontextprotocol/protocolVersion': fc.constantFrom(
              VERSION,
              VERSION,
              '2025-06-18',
              'x',
            ),
            [INFO]: fc.oneof(
              fc.record({ name: fc.string(), version: fc.string() }),
              fc.record({ name: fc.jsonValue(), version: fc.jsonValue() }, { requiredKeys: [] }),
            ),
            [CAPS]: capabilities,
            'io.modelcontextprotocol/logLevel': fc.constantFrom('debug', 'info', 'loud'),
            progressToken: fc.oneof(fc.string(), fc.integer(), fc.double()),
            'io.modelcontextprotocol/related-task': fc.oneof(
              fc.record({ taskId: fc.string() }),
              fc.jsonValue(),
            ),
            other: fc.jsonValue(),
          },
          { requiredKeys: ['io.modelcontextprotocol/protocolVersion', CAPS] },
        ),
      },
      fc.jsonValue(),
    );
    const params = fc.oneof(
      fc.record(
        { name: fc.string(), arguments: fc.jsonValue(), _meta: meta },
        {
          requiredKeys: ['_meta'],
        },
      ),
      fc.record({ cursor: fc.jsonValue(), _meta: meta }, { requiredKeys: [] }),
      fc.jsonValue(),
    );
    const method = fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping');
    // Mostly well-formed, so that near misses (one member off) are common.
    const body = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record(
          {
            jsonrpc: fc.oneof({ weight: 4, arbitrary: fc.constant('2.0') }, fc.string()),
            id: fc.oneof(
              { weight: 3, arbitrary: fc.string() },
              { weight: 3, arbitrary: fc.integer() },
              fc.double(),
              fc.constant(null),
            ),
            method,
            params,
            extra: fc.jsonValue(),
          },
          { requiredKeys: ['jsonrpc', 'id', 'method', 'params'] },
        ),
      },
      fc.jsonValue(),
    );
    const version = fc.oneof(
      { weight: 8, arbitrary: fc.constant(VERSION) },
      fc.constant(undefined),
      fc.constantFrom(`${VERSION} `, '2025-06-18'),
      fc.string(),
    );
    // Most often the body's own method, as a client sends it.
    const methodHeader = fc.oneof(
      { weight: 8, arbitrary: fc.constant('same') },
      fc.constant(undefined),
      method,
      fc.string(),
    );
    let taken = 0;
    const verdicts = createEnvelopeVerdicts();
    fc.assert(
      fc.property(body, version, methodHeader, (message, versionHeader, header) => {
        const plain = JSON.parse(JSON.stringify(message) ?? 'null');
        const mcpMethod = header === 'same' ? (plain?.method as string | undefined) : header;
        if (!isPlainModernRequest(plain, versionHeader, mcpMethod, verdicts)) return;
        taken += 1;
        const route = routeOf(plain, versionHeader, mcpMethod);
        expect(route).toEqual({
          kind: 'modern',
          messageKind: 'request',
          message: plain,
          classification: { era: 'modern', revision: VERSION },
        });
      }),
      { numRuns: 8000 },
    );
    // The property is about accepted bodies: make sure enough of them were generated.
    expect(taken).toBeGreaterThan(25);
  });

  it('is true for enough generated valid requests to make the property above bite', () => {
    const valid = fc.record({
      id: fc.oneof(fc.string(), fc.integer()),
      method: fc.constantFrom('tools/call', 'tools/list'),
      name: fc.string(),
      info: fc.record({ name: fc.string(), version: fc.string() }),
      roots: fc.boolean(),
    });
    fc.assert(
      fc.property(valid, ({ id, method, name, info, roots }) => {
        const body = {
          jsonrpc: '2.0',
          id,
          method,
          params: {
            name,
            _meta: { ...ENVELOPE, [INFO]: info, [CAPS]: roots ? { roots: {} } : {} },
          },
        };
        expect(isPlainModernRequest(body, VERSION, method, createEnvelopeVerdicts())).toBe(true);
        expect(routeOf(body, VERSION, method).kind).toBe('modern');
      }),
      { numRuns: 300 },
    );
  });
});

/** `call` with its envelope changed (undefined members removed). */
function withMeta(change: Record<string, unknown>): unknown {
  const meta: Record<string, unknown> = { ...ENVELOPE, ...change };
  for (const key of Object.keys(meta)) if (meta[key] === undefined) delete meta[key];
  return { ...modernCall, params: { ...modernCall.params, _meta: meta } };
}
