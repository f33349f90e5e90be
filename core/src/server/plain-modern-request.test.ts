import { classifyInboundRequest } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainModernRequest } from './plain-modern-request.js';
import { ENVELOPE } from './test-support/fixtures.js';

const VERSION = '2026-07-28';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const call = {
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
    expect(isPlainModernRequest(call, VERSION, 'tools/call')).toBe(true);
    const list = { jsonrpc: '2.0', id: 'l', method: 'tools/list', params: { _meta: ENVELOPE } };
    expect(isPlainModernRequest(list, VERSION, 'tools/list')).toBe(true);
  });

  it.each([
    ['no protocol header', call, undefined, 'tools/call'],
    ['a 2025 protocol header', call, '2025-06-18', 'tools/call'],
    ['a padded protocol header', call, ` ${VERSION}`, 'tools/call'],
    ['no method header', call, VERSION, undefined],
    ['a mismatched method header', call, VERSION, 'tools/list'],
    ['another method', { ...call, method: 'server/discover' }, VERSION, 'server/discover'],
    ['an extra member', { ...call, extra: 1 }, VERSION, 'tools/call'],
    ['a fractional id', { ...call, id: 1.5 }, VERSION, 'tools/call'],
    ['no params', { ...call, params: undefined }, VERSION, 'tools/call'],
    ['no _meta', { ...call, params: { name: 'gh_search' } }, VERSION, 'tools/call'],
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
    expect(isPlainModernRequest(body, version, method)).toBe(false);
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
    fc.assert(
      fc.property(body, version, methodHeader, (message, versionHeader, header) => {
        const plain = JSON.parse(JSON.stringify(message) ?? 'null');
        const mcpMethod = header === 'same' ? (plain?.method as string | undefined) : header;
        if (!isPlainModernRequest(plain, versionHeader, mcpMethod)) return;
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
        expect(isPlainModernRequest(body, VERSION, method)).toBe(true);
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
  return { ...call, params: { ...call.params, _meta: meta } };
}
