import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLine } from './one-line.js';
import { cutText } from './cut-text.js';

/** Half of a surrogate pair, alone. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('cutting text for a message', () => {
  it('keeps short text and cuts long text to the limit, the mark included', () => {
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('abcdef', 4)).toBe('abc…');
    expect(oneLine('x'.repeat(1000))).toHaveLength(300);
  });

  it('never leaves half a character', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.integer({ min: 2, max: 40 }),
        (text, max) => {
          const cut = cutText(text, max);
          expect(cut.length).toBeLessThanOrEqual(
            Math.max(max, text.length <= max ? text.length : 0),
          );
          expect(LONE_SURROGATE.test(cut)).toBe(false);
        },
      ),
    );
    expect(cutText('ab😀cd', 4)).toBe('ab…');
  });
});
