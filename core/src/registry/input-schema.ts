/**
 * Checks a tool's `inputSchema` against the JSON Schema meta-schema its `$schema` names:
 * draft 2020-12 (the MCP default when `$schema` is absent) or draft-07. Unknown keywords
 * such as `x-mcp-header` are allowed, as the meta-schemas allow them. Each meta-schema
 * validator is compiled once, on first use, and shared by every registry.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isPlainObject } from '../util/objects.js';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema';

/** `$schema` values this module accepts, normalized (no trailing `#`). */
const DIALECTS: Readonly<Record<string, 'draft-2020-12' | 'draft-07'>> = {
  [DRAFT_2020_12]: 'draft-2020-12',
  'http://json-schema.org/draft/2020-12/schema': 'draft-2020-12',
  [DRAFT_07]: 'draft-07',
  'https://json-schema.org/draft-07/schema': 'draft-07',
};

let validators: { 'draft-2020-12': ValidateFunction; 'draft-07': ValidateFunction } | undefined;

function metaValidators(): NonNullable<typeof validators> {
  if (validators === undefined) {
    const draft2020 = new Ajv2020({ strict: false, allErrors: false }).getSchema(DRAFT_2020_12);
    const draft07 = new Ajv({ strict: false, allErrors: false }).getSchema(DRAFT_07);
    if (draft2020 === undefined || draft07 === undefined) {
      throw new Error('ajv did not provide the JSON Schema meta-schemas');
    }
    validators = { 'draft-2020-12': draft2020, 'draft-07': draft07 };
  }
  return validators;
}

/**
 * Why `schema` is not a valid MCP `inputSchema`, or undefined when it is valid.
 * @example inputSchemaProblem({ type: 'object' }) // undefined
 */
export function inputSchemaProblem(schema: unknown): string | undefined {
  if (!isPlainObject(schema)) return 'it must be a JSON object';
  if (schema.type !== 'object') return 'its "type" must be "object"';
  const declared = schema.$schema;
  if (declared !== undefined && typeof declared !== 'string') return '"$schema" must be a string';
  const dialect = declared === undefined ? 'draft-2020-12' : DIALECTS[declared.replace(/#$/, '')];
  if (dialect === undefined) {
    return `"$schema" ${JSON.stringify(declared).slice(0, 120)} is not supported (use draft 2020-12 or draft-07)`;
  }
  const validate = metaValidators()[dialect];
  if (validate(schema)) return undefined;
  const first = validate.errors?.[0];
  const where = first?.instancePath ? `at ${first.instancePath} ` : '';
  return `${where}${first?.message ?? 'it does not match the meta-schema'} (${dialect})`;
}
