import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOME_FORMAT_VERSION, HOME_MIGRATIONS, latestHomeFormat } from './migrations.js';

const doc = readFileSync(new URL('../../../../docs/home-format.md', import.meta.url), 'utf8');

/** The version table of docs/home-format.md: version -> what changed. */
function documentedVersions(): Map<number, string> {
  const rows = new Map<number, string>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (/^\d+$/.test(cells[1] ?? '')) rows.set(Number(cells[1]), cells[3] ?? '');
  }
  return rows;
}

const step = (from: number, to: number) => ({ from, to, summary: '', migrate: async () => {} });

describe('the home migrations', () => {
  it('are one chain of single steps from version 1 to the current version', () => {
    expect(HOME_MIGRATIONS.map(({ from, to }) => [from, to])).toEqual(
      Array.from({ length: HOME_FORMAT_VERSION - 1 }, (_, i) => [i + 1, i + 2]),
    );
    expect(HOME_FORMAT_VERSION).toBeGreaterThanOrEqual(2);
  });

  it('are listed in docs/home-format.md, one row per version with the summary of its step', () => {
    const rows = documentedVersions();
    expect([...rows.keys()]).toEqual(Array.from({ length: HOME_FORMAT_VERSION }, (_, i) => i + 1));
    for (const { to, summary } of HOME_MIGRATIONS)
      expect(rows.get(to), `version ${to}`).toBe(summary);
  });

  it('refuses a list that skips a version, starts after 1 or steps back', () => {
    expect(latestHomeFormat([])).toBe(1);
    expect(latestHomeFormat([step(1, 2), step(2, 3)])).toBe(3);
    expect(() => latestHomeFormat([step(1, 2), step(3, 4)])).toThrow(
      'home migration 3 -> 4 does not follow version 2',
    );
    expect(() => latestHomeFormat([step(2, 3)])).toThrow('does not follow version 1');
    expect(() => latestHomeFormat([step(1, 3)])).toThrow('home migration 1 -> 3');
    expect(() => latestHomeFormat([step(1, 2), step(2, 1)])).toThrow('home migration 2 -> 1');
  });
});
