import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { CONNECTOR_FIXTURES } from '@tutti/test-kit';
import { manifestJsonSchema } from './manifest-schema.js';

const published = fileURLToPath(
  new URL('../../../docs/connector-manifest.schema.json', import.meta.url),
);
const fixtures = pathToFileURL(CONNECTOR_FIXTURES);
const generated = `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`;

// Regenerate the published file with: TUTTI_WRITE_SCHEMA=1 npx vitest run <this file>,
// then `npx biome format --write docs/connector-manifest.schema.json` (so the comparison
// below is of parsed JSON: the formatter's layout does not matter).
if (process.env.TUTTI_WRITE_SCHEMA === '1') writeFileSync(published, generated);

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`${name}/tutti-connector.json`, fixtures), 'utf8'));
}

describe('docs/connector-manifest.schema.json', () => {
  it('equals the JSON Schema generated from the zod schema', () => {
    expect(JSON.parse(readFileSync(published, 'utf8'))).toEqual(JSON.parse(generated));
  });

  it('accepts every valid fixture and rejects unknown fields', () => {
    const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(
      JSON.parse(generated),
    );
    for (const name of ['echo', 'keyed', 'remote-docs', 'remote-search', 'skills-only']) {
      expect(validate(fixture(name)), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate(fixture('invalid/bad-fields'))).toBe(false);
    expect(validate(fixture('invalid/missing-command'))).toBe(false);
  });
});
