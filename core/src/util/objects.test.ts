import { describe, expect, it } from 'vitest';
import { deepFreeze, isPlainObject } from './objects.js';

describe('isPlainObject', () => {
  it('takes JSON objects and refuses null, arrays and primitives', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject({ a: [1] })).toBe(true);
    for (const value of [null, undefined, [], [1], 'x', 3, true]) {
      expect(isPlainObject(value)).toBe(false);
    }
  });
});

describe('deepFreeze', () => {
  it('freezes every object and array reachable from the value and returns it', () => {
    const value = { list: [{ inner: 1 }], nested: { deeper: { x: 'y' } } };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.list)).toBe(true);
    expect(Object.isFrozen(value.list[0])).toBe(true);
    expect(Object.isFrozen(value.nested.deeper)).toBe(true);
  });

  it('passes primitives and null through', () => {
    expect(deepFreeze(null)).toBeNull();
    expect(deepFreeze(5)).toBe(5);
  });
});
