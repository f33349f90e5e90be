/**
 * fast-check building blocks shared by the hostile request generators: header values the
 * HTTP client can put on the wire, Host and Origin variants, bearer variants, bodies that
 * are not JSON, deeply nested JSON and random JSON-RPC shapes with wrong types.
 */
import fc from 'fast-check';

/** A header value node:http sends as is (tab, printable ASCII and latin-1). */
export const headerText = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    fc.integer({ min: 0xa0, max: 0xff }).map((code) => String.fromCharCode(code)),
  ),
  maxLength: 80,
});

/** Host values: the right one most often, then wrong ports, foreign names and garbage. */
export function hostVariants(port: number): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(`127.0.0.1:${port}`) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        undefined,
        '',
        `localhost:${port}`,
        `[::1]:${port}`,
        '127.0.0.1',
        `127.0.0.1:${port + 1}`,
        `evil.example:${port}`,
        `127.0.0.1.nip.io:${port}`,
        `127.0.0.1:${port}.evil.example`,
        `LOCALHOST:${port}`,
        `127.0.0.1:0${port}`,
        `127.0.0.1:${port}:${port}`,
        '0.0.0.0:80',
      ),
    },
    { weight: 1, arbitrary: headerText },
  );
}

/** Origin values: absent most often, then `null`, loopback, foreign and garbage. */
export const originVariants: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'null',
      'http://127.0.0.1',
      'https://localhost:3000',
      'http://evil.example',
      'http://127.0.0.1.evil.example',
      'file://',
      'chrome-extension://abc',
      'http://[::1]:9',
      'http://localhost@evil.example',
    ),
  },
  { weight: 1, arbitrary: headerText },
);

/** Authorization values built around the one `valid` token and tokens of the wrong kind. */
export function authorizationVariants(
  valid: string,
  wrongKind: readonly string[],
): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(`Bearer ${valid}`) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        undefined,
        '',
        'Bearer',
        'Bearer ',
        `Bearer ${valid}x`,
        `Bearer ${valid.slice(1)}`,
        `Bearer ${valid.toUpperCase()}`,
        `Bearer ${valid} ${valid}`,
        `Basic ${Buffer.from(`user:${valid}`).toString('base64')}`,
        `bearer\t${valid.slice(0, -1)}${valid.endsWith('A') ? 'B' : 'A'}`,
        `Token ${valid}`,
        ...wrongKind.map((token) => `Bearer ${token}`),
      ),
    },
    { weight: 1, arbitrary: headerText.map((text) => `Bearer ${text}`) },
    { weight: 1, arbitrary: headerText },
  );
}

/** Content-Type values: JSON most often. */
export const contentTypeVariants: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/json; charset=utf-16',
      'application/JSON',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json-seq',
      'application/*',
      ';;;',
    ),
  },
  { weight: 1, arbitrary: headerText },
);

/** A JSON text nested `depth` levels (arrays or objects). */
export function nested(depth: number, object: boolean): string {
  return object
    ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
    : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** Bodies that are not valid JSON, or JSON only a careless parser survives. */
export const brokenBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.json().map((text) => text.slice(0, Math.max(0, text.length - 1))),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'true',
    '0',
    '"x"',
    '[]',
    '{}',
    '{"jsonrpc":"2.0",',
    '{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"constructor":{"prototype":{"x":1}},"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1,"method":"ping"}garbage',
    '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
    '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
    '{"a":1,"a":2}',
    'NaN',
    '[1,]',
  ),
  fc
    .constantFrom(10, 1000, 10_000, 100_000)
    .chain((depth) => fc.boolean().map((object) => nested(depth, object))),
);

/** JSON-RPC-ish values: right and wrong types for every member, sometimes members missing. */
export function rpcShape(methods: readonly string[], toolNames: readonly string[]) {
  const anything = fc.jsonValue({ maxDepth: 3 });
  const params = fc.oneof(
    anything,
    fc.record(
      {
        name: fc.oneof(
          fc.constantFrom(...toolNames),
          fc.string(),
          fc.string({ unit: 'grapheme', maxLength: 60 }),
          anything,
        ),
        arguments: fc.oneof(fc.dictionary(fc.string(), anything, { maxKeys: 4 }), anything),
        cursor: fc.oneof(fc.string(), anything),
        protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2026-07-28', '1.0'), anything),
        _meta: fc.oneof(
          fc.record(
            {
              'io.modelcontextprotocol/protocolVersion': fc.oneof(
                fc.constantFrom('2026-07-28', '2025-06-18'),
                anything,
              ),
              'io.modelcontextprotocol/clientInfo': anything,
              'io.modelcontextprotocol/clientCapabilities': anything,
            },
            { requiredKeys: [] },
          ),
          anything,
        ),
        notifications: anything,
      },
      { requiredKeys: [] },
    ),
  );
  return fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.constantFrom('1.0', 2, null, '')),
      id: fc.oneof(
        fc.integer(),
        fc.string({ maxLength: 20 }),
        fc.constantFrom(null, 1.5, -0),
        anything,
      ),
      method: fc.oneof(
        fc.constantFrom(...methods),
        fc.string({ maxLength: 30 }),
        fc.string({ unit: 'grapheme', maxLength: 10 }),
        anything,
      ),
      params,
      result: anything,
      error: anything,
    },
    { requiredKeys: [] },
  );
}

/** Every method name either surface knows, plus some it does not. */
export const MCP_METHODS = [
  'initialize',
  'notifications/initialized',
  'notifications/cancelled',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  'server/discover',
  'subscriptions/listen',
  'completion/complete',
  'logging/setLevel',
  'sampling/createMessage',
  '__proto__',
  'constructor',
] as const;

/** Content of an elicitation answer: flat and fine, then nested, huge, wide or not an object. */
const answerContent = fc.oneof(
  fc.dictionary(
    fc.string({ maxLength: 10 }),
    fc.oneof(fc.string(), fc.boolean(), fc.integer(), fc.array(fc.string(), { maxLength: 3 })),
    { maxKeys: 5 },
  ),
  fc.constant({ big: 'x'.repeat(200_000) }),
  fc.constant(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]))),
  fc.constant({ list: Array(1000).fill('y') }),
  fc.constant({ nested: { deeper: { deepest: [{}] } } }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Ids of POSTed responses: ones shaped like the server's relay ids, and anything else. */
const responseId = fc.oneof(
  fc.constantFrom('tutti-e-1', 'tutti-e-0', 'tutti-e--1', 'tutti-e-1e3', 'tutti-e-', ''),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.constantFrom(null, 1.5, -0, 2 ** 60, 'x'.repeat(5000)),
  fc.jsonValue({ maxDepth: 2 }),
);

/**
 * JSON-RPC responses as an agent would POST them to answer an elicitation, with wrong
 * types, both or neither of result and error, unknown and foreign ids and huge content.
 */
export const responseShape = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 4, arbitrary: fc.constant('2.0') }, fc.constantFrom('1.0', null)),
    id: responseId,
    result: fc.oneof(
      fc.record(
        {
          action: fc.oneof(
            fc.constantFrom('accept', 'decline', 'cancel'),
            fc.jsonValue({ maxDepth: 1 }),
          ),
          content: answerContent,
          _meta: fc.jsonValue({ maxDepth: 2 }),
        },
        { requiredKeys: ['action'] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    error: fc.oneof(
      fc.record(
        { code: fc.oneof(fc.integer(), fc.double()), message: fc.string(), data: answerContent },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    method: fc.constantFrom('elicitation/create', 'tools/call'),
  },
  { requiredKeys: ['jsonrpc'] },
);

/** Well-formed responses (a result object or an error with code and message). */
export const wellFormedResponse = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
    result: fc.record(
      { action: fc.constantFrom('accept', 'decline', 'cancel', 'maybe'), content: answerContent },
      { requiredKeys: [] },
    ),
  }),
  fc.record(
    {
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
      error: fc.record({ code: fc.integer(), message: fc.string({ maxLength: 40 }) }),
    },
    { requiredKeys: ['jsonrpc', 'error'] },
  ),
);
