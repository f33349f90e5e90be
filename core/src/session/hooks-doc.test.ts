import { readFileSync } from 'node:fs';
import { HookMap } from 'tapable';
import { describe, expect, it } from 'vitest';
import { createSessionHooks, HOOK_TAP_RETURNS } from './hooks.js';

const doc = readFileSync(new URL('../../../docs/hooks.md', import.meta.url), 'utf8');

/** Rows of the first table: hook, class, keyed by, arguments, tap return. */
function documentedHooks(): string[][] {
  return doc
    .split('\n')
    .map((line) => line.split('|').map((cell) => cell.trim().replace(/`/g, '')))
    .filter((cells) => cells.length === 7 && /^[a-z]+[A-Z]?\w*$/.test(cells[1]!))
    .filter((cells) => cells[2]!.endsWith('Hook'))
    .map((cells) => cells.slice(1, 6));
}

describe('docs/hooks.md', () => {
  it('documents exactly the hooks of the table with their class, key, arguments and tap return', () => {
    const hooks = createSessionHooks();
    const actual = Object.entries(hooks).map(([name, entry]) => {
      const keyed = entry instanceof HookMap;
      const hook = keyed ? (entry as HookMap<object>).for('any-provider') : entry;
      return [
        name,
        hook.constructor.name,
        keyed ? 'provider' : '',
        (hook as unknown as { _args: string[] })._args.join(', '),
        HOOK_TAP_RETURNS[name as keyof typeof hooks],
      ];
    });
    expect(documentedHooks()).toEqual(actual);
  });

  it('keeps the hook table frozen', () => {
    const hooks = createSessionHooks();
    expect(Object.isFrozen(hooks)).toBe(true);
  });
});
