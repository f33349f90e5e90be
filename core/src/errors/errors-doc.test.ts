import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './codes.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

/** Rows of the docs table: `| CODE | status | message |`. */
function documentedRows(): Map<string, { status: number; message: string }> {
  const rows = new Map<string, { status: number; message: string }>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const code = cells[1]?.replace(/`/g, '');
    if (!code?.startsWith('TUTTI_ERR_')) continue;
    rows.set(code, { status: Number(cells[2]), message: (cells[3] ?? '').replace(/\\\|/g, '|') });
  }
  return rows;
}

describe('docs/errors.md', () => {
  it('lists exactly the codes of the error table', () => {
    expect([...documentedRows().keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('gives each code the status and message the code has', () => {
    const rows = documentedRows();
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(rows.get(code), code).toEqual({ status: spec.status, message: spec.message });
    }
  });
});
