/** POSTed JSON-RPC responses in the one classification, held to the SDK's verdict. */
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classifyInbound,
  createEnvelopeVerdicts,
  isPlainLegacyRequest,
} from './inbound-message.js';
import { ENVELOPE } from '@tutti/test-kit/core/server-world';

const NO_HEADERS = { protocolVersion: undefined, mcpMethod: undefined, mcpName: undefined };

describe('classifyInbound of posted responses', () => {
  it.each([
    ['a result', { jsonrpc: '2.0', id: 'tutti-e-1', result: { action: 'accept' } }, 'tutti-e-1'],
    ['an integer id', { jsonrpc: '2.0', id: 3, result: {} }, 3],
    [
      'an error',
      { jsonrpc: '2.0', id: 'tutti-e-2', error: { code: -1, message: 'no' } },
      'tutti-e-2',
    ],
    [
      'an error without id',
      { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
      null,
    ],
  ])('takes %s as a response', (_what, body, id) => {
    const message = classifyInbound(body, NO_HEADERS, createEnvelopeVerdicts());
    expect(message).toEqual(
      'result' in body
        ? { kind: 'response', id, result: (body as { result: unknown }).result }
        : { kind: 'response', id },
    );
  });

  it('takes a response the same way whatever era its headers name', () => {
    const body = { jsonrpc: '2.0', id: 'tutti-e-1', result: { action: 'cancel' } };
    const headers = { protocolVersion: '2026-07-28', mcpMethod: 'tools/call', mcpName: 'x' };
    expect(classifyInbound(body, headers, createEnvelopeVerdicts()).kind).toBe('response');
  });

  it.each([
    [
      'a result and an error',
      { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
    ],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, result: {} }],
    ['a null id with a result', { jsonrpc: '2.0', id: null, result: {} }],
    ['a result that is no object', { jsonrpc: '2.0', id: 1, result: 'accept' }],
    ['an extra member', { jsonrpc: '2.0', id: 1, result: {}, method: 'x' }],
    ['a batch of responses', [{ jsonrpc: '2.0', id: 1, result: {} }]],
    ['an error without a code', { jsonrpc: '2.0', id: 1, error: { message: 'm' } }],
  ])('rejects %s with a JSON-RPC error', (_what, body) => {
    const message = classifyInbound(body, NO_HEADERS, createEnvelopeVerdicts());
    expect(message.kind).toBe('rejected');
  });

  it('is a response exactly when the SDK routes the body as one, and never a fast-path request', () => {
    const anything = fc.jsonValue({ maxDepth: 3 });
    const id = fc.oneof(
      { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
      { weight: 4, arbitrary: fc.integer() },
      fc.double(),
      fc.constant(null),
    );
    const result = fc.record({
      jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, fc.string()),
      id,
      result: fc.oneof(
        fc.record({ action: fc.constantFrom('accept', 'decline', 'cancel', 'x') }),
        fc.record({ _meta: anything }),
        anything,
      ),
    });
    const error = fc.record(
      {
        jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, fc.string()),
        id,
        error: fc.oneof(
          fc.record({ code: fc.integer(), message: fc.string() }),
          fc.record({ code: fc.double(), message: anything, data: anything }, { requiredKeys: [] }),
        ),
      },
      { requiredKeys: ['jsonrpc', 'error'] },
    );
    // Mostly well-formed, with one member added or changed now and then: near misses.
    const change = fc.option(
      fc.record({
        key: fc.constantFrom('method', 'params', 'extra', 'result', 'error', 'id', 'jsonrpc'),
        value: fc.oneof(anything, fc.constant({ _meta: ENVELOPE })),
      }),
      { freq: 3 },
    );
    const body = fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .tuple(fc.oneof(result, error), change)
          .map(([base, changed]) =>
            changed === null ? base : { ...base, [changed.key]: changed.value },
          ),
      },
      fc.array(fc.oneof(result, error), { maxLength: 2 }),
      anything,
    );
    const version = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom('2025-06-18', '2026-07-28'),
      fc.string(),
    );
    let responses = 0;
    fc.assert(
      fc.property(body, version, (message, protocolVersion) => {
        const plain = JSON.parse(JSON.stringify(message) ?? 'null');
        const route = classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: protocolVersion,
          mcpMethodHeader: undefined,
          mcpNameHeader: undefined,
          body: plain,
        });
        const sdkSaysResponse = route.kind === 'legacy' && route.reason === 'response';
        const ours = classifyInbound(
          plain,
          { protocolVersion, mcpMethod: undefined, mcpName: undefined },
          createEnvelopeVerdicts(),
        );
        expect(ours.kind === 'response').toBe(sdkSaysResponse);
        if (!sdkSaysResponse) return;
        responses += 1;
        expect(isPlainLegacyRequest(plain, protocolVersion)).toBe(false);
        expect(ours).toMatchObject({ id: plain.id ?? null });
        expect('result' in ours).toBe('result' in plain);
      }),
      { numRuns: 4000 },
    );
    expect(responses).toBeGreaterThan(100);
  });
});
