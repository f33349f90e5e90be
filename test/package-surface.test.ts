/**
 * Other packages reach core only through its entry points (`@tutti/core`, `/client`,
 * `/internal`, `/testing`), never by a path into core/src or core/dist: the export map is
 * the whole of core's surface.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const OUTSIDE_CORE = ['cli', 'providers', 'plugins', 'test', 'bench'];
/** A module specifier (static or dynamic import, or a URL) that walks into core's folders. */
const DEEP = /['"`](?:\.\.\/)+core\/(?:src|dist)(?:\/[^'"`]*)?['"`]/;

describe("core's package surface", () => {
  it('no file outside core imports core by a path into core/src or core/dist', () => {
    const files = execFileSync('git', ['ls-files', ...OUTSIDE_CORE], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => /\.(ts|mts|mjs|js|cjs)$/.test(file));
    expect(files.length).toBeGreaterThan(50);
    const deep = files.filter((file) => DEEP.test(readFileSync(`${root}${file}`, 'utf8')));
    expect(deep).toEqual([]);
  });
});
