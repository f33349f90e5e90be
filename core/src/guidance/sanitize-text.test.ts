import { describe, expect, it } from 'vitest';
import { sanitizeText } from './sanitize-text.js';

/** Half of a surrogate pair, alone. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('connector text made safe for agent guidance', () => {
  it('removes links, paths and secret-looking values, on one line', () => {
    expect(sanitizeText('See https://evil.test/x\nor /home/me/.ssh/id and token=abc123')).toBe(
      'See [link removed] or [path removed] and [secret removed]',
    );
  });

  it('lets no invisible character hide a secret or reorder the text', () => {
    expect(sanitizeText('api\u200bkey=hunter2 ok')).toBe('[secret removed] ok');
    expect(sanitizeText('safe\u202eevil\u2066 and\u200f more')).toBe('safe evil and more');
    expect(sanitizeText('a\u0000b\u061cc')).toBe('a b c');
  });

  it('cuts long text with a mark and never halves a character', () => {
    const cut = sanitizeText(`${'a'.repeat(8)}😀😀`, 10);
    expect(cut).toBe('aaaaaaaa…');
    expect(LONE_SURROGATE.test(cut)).toBe(false);
  });
});
