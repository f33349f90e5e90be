/** Validates params against the ACP v1 JSON Schema shipped with the SDK (ajv, 2020-12). */
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';

const schema = createRequire(import.meta.url)('@agentclientprotocol/sdk/schema/v1/schema.json');
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The schema annotates integers with Rust-style formats; they add no JSON constraint.
for (const format of [
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'uint',
  'double',
  'float',
]) {
  ajv.addFormat(format, true);
}
ajv.addSchema(schema, 'acp');

/** The ajv errors of `value` as a `definition` (e.g. `NewSessionRequest`); [] when valid. */
export function acpSchemaErrors(definition: string, value: unknown): string[] {
  const validate = ajv.getSchema(`acp#/$defs/${definition}`);
  if (!validate) throw new Error(`no ACP schema definition ${definition}`);
  return validate(value)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}
