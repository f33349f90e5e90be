/**
 * Seeded 2026-07-28 `tools/call` retries whose `requestState` the daemon never sealed:
 * random text, the sealed form's shape with random parts, and huge values, each with
 * `inputResponses` that accept. A correct server refuses every one with `-32602` (and
 * resumes nothing, since nothing was parked).
 */
import fc from 'fast-check';
import { authorizedHeaders, type HostileRequest, type McpTarget } from './hostile-requests.js';

const part = fc.string({ unit: fc.constantFrom(...'abcdefABCDEF0123456789-_'), maxLength: 48 });

/** Values a forged state takes: free text, the `v1.<id>.<expiry>.<mac>` shape, huge ones. */
const forgedState = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc
    .tuple(part, fc.integer({ min: 0 }), part)
    .map(([id, expiry, mac]) => `v1.${id}.${expiry}.${mac}`),
  fc.integer({ min: 1_000, max: 200_000 }).map((length) => 'v1.'.padEnd(length, 'A')),
);

/** Retries with forged states; each must be answered a JSON-RPC error `-32602`. */
export function forgedStateRetries(
  target: McpTarget,
  seed: number,
  count: number,
): HostileRequest[] {
  const request = fc
    .record({
      id: fc.oneof(fc.integer({ min: 0 }), fc.string({ minLength: 1, maxLength: 12 })),
      name: fc.constantFrom(...target.safeTools),
      requestState: forgedState,
      content: fc.dictionary(fc.string({ maxLength: 8 }), fc.boolean(), { maxKeys: 2 }),
    })
    .map(({ id, name, requestState, content }) => ({
      method: 'POST',
      path: '/mcp/connector',
      headers: authorizedHeaders(target, {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      }),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name,
          arguments: {},
          inputResponses: { elicitation: { action: 'accept', content } },
          requestState,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
          },
        },
      }),
      refusedWith: -32_602,
      authorized: true,
    }));
  return fc.sample(request, { seed, numRuns: count });
}
