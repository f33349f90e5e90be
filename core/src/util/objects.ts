/** The two object helpers every part of core shares: a plain-object test and a deep freeze. */

/**
 * True for a non-null, non-array object: what a JSON object parses to.
 * @example isPlainObject({ a: 1 }) // true; isPlainObject([1]) // false
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Freezes `value` and everything reachable from it, and returns it.
 * @example const frozen = deepFreeze({ list: [1, 2] });
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
