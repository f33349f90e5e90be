/**
 * Other packages reach test support only through the test kit's entry points
 * (`@tutti/test-kit`, `@tutti/test-kit/<module>`), never by a relative path into `test/`,
 * and the tests in `test/` never by one into the kit's folder: its exports are the whole
 * of what tests and benches share.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
/** A module specifier or URL that walks up into a folder `test/`. */
const INTO_TEST = /['"`](?:\.\.\/)+test\//;
/** A module specifier or URL that walks into the kit's folder from beside it. */
const INTO_KIT = /['"`](?:\.\.\/|\.\/)+kit\//;

function sources(...folders: string[]): string[] {
  return execFileSync('git', ['ls-files', ...folders], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => /\.(ts|mts|mjs|js|cjs)$/.test(file));
}

describe("the test kit's surface", () => {
  it('no file of core, cli, the providers, the plugins or bench reaches into test/ by a path', () => {
    const files = sources('core', 'cli', 'providers', 'plugins', 'bench');
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((file) => INTO_TEST.test(readFileSync(`${root}${file}`, 'utf8')))).toEqual(
      [],
    );
  });

  it('no test outside the kit reaches into test/kit by a path', () => {
    const files = sources('test').filter((file) => !file.startsWith('test/kit/'));
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((file) => INTO_KIT.test(readFileSync(`${root}${file}`, 'utf8')))).toEqual(
      [],
    );
  });
});
