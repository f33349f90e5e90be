/**
 * One version style per package.json: every dependency of a file pinned to an exact version,
 * or every one a caret range, never both (a `file:` link to a folder of this repository is
 * no version) (core, a library others install, takes carets;
 * the rest pin what they were tested with).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The project's package.json files: root, each workspace, bench. */
function manifests(): string[] {
  const folders = ['.', 'core', 'cli', 'bench'];
  for (const parent of ['providers', 'plugins']) {
    for (const entry of readdirSync(join(ROOT, parent), { withFileTypes: true })) {
      if (entry.isDirectory()) folders.push(join(parent, entry.name));
    }
  }
  return folders
    .map((folder) => join(folder, 'package.json'))
    .filter((file) => existsSync(join(ROOT, file)));
}

/** `exact` for 1.2.3, `caret` for ^1.2.3, `other` for anything else. */
function versionStyle(range: string): 'exact' | 'caret' | 'other' {
  if (/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range)) return 'exact';
  if (/^\^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range)) return 'caret';
  return 'other';
}

describe('dependency version styles', () => {
  it('tells an exact version from a caret range and from anything else', () => {
    expect(['1.2.3', '^1.2.3', '~1.2.3', '*', 'file:../x'].map(versionStyle)).toEqual([
      'exact',
      'caret',
      'other',
      'other',
      'other',
    ]);
  });

  it.each(manifests())('%s uses one style, exact or caret, for all its dependencies', (file) => {
    const json = JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
    const ranges: Record<string, string> = {
      ...json.dependencies,
      ...json.devDependencies,
      ...json.optionalDependencies,
    };
    // A `file:` link names a folder of this repository, not a version.
    const versions = Object.values(ranges).filter((range) => !range.startsWith('file:'));
    const styles = new Set(versions.map(versionStyle));
    expect(styles.has('other'), `${file}: ${JSON.stringify(ranges)}`).toBe(false);
    expect(styles.size, `${file} mixes exact and caret: ${JSON.stringify(ranges)}`).toBeLessThan(2);
  });
});
