import { describe, expect, it } from 'vitest';
import { inputSchemaProblem } from './input-schema.js';

/** Real-world shaped schemas, as upstream MCP servers list them. */
const VALID: Record<string, unknown> = {
  'an empty object schema': { type: 'object' },
  'zod-to-json-schema draft-07 output': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { owner: { type: 'string' }, page: { type: 'number', minimum: 1 } },
    required: ['owner'],
    additionalProperties: false,
  },
  'draft-07 definitions with $ref': {
    $schema: 'http://json-schema.org/draft-07/schema',
    type: 'object',
    definitions: { label: { type: 'string', maxLength: 50 } },
    properties: { labels: { type: 'array', items: { $ref: '#/definitions/label' } } },
  },
  '2020-12 $defs with $ref and prefixItems': {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] } },
    properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
    additionalProperties: { type: 'string' },
  },
  'x- extension keywords such as x-mcp-header': {
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
    'x-vendor': { anything: [1, 2] },
  },
  'oneOf, enum, const and format': {
    type: 'object',
    properties: {
      mode: { enum: ['a', 'b'] },
      when: { type: 'string', format: 'date-time' },
      value: { oneOf: [{ type: 'string' }, { const: 3 }] },
    },
  },
};

const INVALID: Record<string, [unknown, RegExp]> = {
  'a missing schema': [undefined, /JSON object/],
  'an array': [[], /JSON object/],
  'a schema whose type is not object': [{ type: 'string' }, /"type" must be "object"/],
  'a schema with no type': [{ properties: {} }, /"type" must be "object"/],
  'an unknown type name': [
    { type: 'object', properties: { a: { type: 'strnig' } } },
    /\/properties\/a\/type/,
  ],
  'a negative minLength': [
    { type: 'object', properties: { a: { minLength: -1 } } },
    /minLength.*>= 0/,
  ],
  'required that is not an array': [{ type: 'object', required: 'a' }, /\/required/],
  'a draft-07 schema with a bad items': [
    { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', items: 3 },
    /draft-07/,
  ],
  'an unsupported dialect': [
    { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
    /not supported/,
  ],
  'a non-string $schema': [{ $schema: 7, type: 'object' }, /must be a string/],
};

describe('inputSchemaProblem', () => {
  for (const [what, schema] of Object.entries(VALID)) {
    it(`accepts ${what}`, () => {
      expect(inputSchemaProblem(schema)).toBeUndefined();
    });
  }

  for (const [what, [schema, reason]] of Object.entries(INVALID)) {
    it(`rejects ${what}`, () => {
      expect(inputSchemaProblem(schema)).toMatch(reason);
    });
  }

  it('checks a schema without $schema against draft 2020-12, where items must be a schema', () => {
    const tupleItems = { type: 'object', properties: { a: { items: [{ type: 'string' }] } } };
    expect(inputSchemaProblem(tupleItems)).toMatch(/draft-2020-12/);
    expect(
      inputSchemaProblem({ ...tupleItems, $schema: 'http://json-schema.org/draft-07/schema#' }),
    ).toBeUndefined();
  });
});
