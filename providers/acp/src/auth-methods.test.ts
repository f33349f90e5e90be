import { describe, expect, it } from 'vitest';
import { authMethodsOf } from './auth-methods.js';

describe('authMethodsOf', () => {
  it('keeps id, name and description of each well-formed method', () => {
    expect(
      authMethodsOf([
        { id: 'oauth', name: 'Sign in', description: 'In a browser', _meta: { x: 1 } },
        { id: 'key', name: 'API key' },
      ]),
    ).toEqual([
      { id: 'oauth', name: 'Sign in', description: 'In a browser' },
      { id: 'key', name: 'API key' },
    ]);
  });

  it('drops what is not a method and bounds what an agent wrote', () => {
    const long = 'x'.repeat(5_000);
    const many = Array.from({ length: 40 }, (_, index) => ({ id: `m${index}`, name: long }));
    const shown = authMethodsOf([null, 'oauth', { id: 3, name: 'n' }, { name: 'no id' }, ...many]);
    expect(shown).toHaveLength(12);
    expect(shown[0]?.name).toHaveLength(500);
    expect(authMethodsOf(undefined)).toEqual([]);
    expect(authMethodsOf({ id: 'a', name: 'b' })).toEqual([]);
  });
});
