import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './codes.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
const controlApi = readFileSync(new URL('../../../docs/control-api.md', import.meta.url), 'utf8');

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

/** A route with every path parameter (`{id}`, `<id>`) written as `*`. */
function routeShape(method: string, path: string): string {
  return `${method} ${path.replace(/\{[^}]+\}|<[^>]+>/g, '*')}`;
}

/** The routes docs/control-api.md lists in its tables: `| \`METHOD /v1/...\` |`. */
function documentedRoutes(): Set<string> {
  const routes = new Set<string>();
  for (const match of controlApi.matchAll(/^\| `(GET|POST|PUT|PATCH|DELETE) (\/v1\/[^`]*)`/gm)) {
    routes.add(routeShape(match[1]!, match[2]!));
  }
  return routes;
}

describe('the error messages', () => {
  it('never read ".." where a sentence ends', () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(spec.message, code).not.toMatch(/\.\./);
    }
  });

  it('name only control API routes that docs/control-api.md lists', () => {
    const routes = documentedRoutes();
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      for (const match of spec.message.matchAll(
        /\b(GET|POST|PUT|PATCH|DELETE) (\/v1\/[^\s),]*)/g,
      )) {
        expect(routes, `${code}: ${match[0]}`).toContain(routeShape(match[1]!, match[2]!));
      }
    }
  });
});

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
