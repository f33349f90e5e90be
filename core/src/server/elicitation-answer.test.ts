import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  elicitationAnswerOf,
  MAX_CONTENT_LIST_LENGTH,
  MAX_CONTENT_MEMBERS,
  MAX_CONTENT_STRING_LENGTH,
} from './elicitation-answer.js';

describe('elicitationAnswerOf', () => {
  it('takes each action, and flat content only with a form accepted', () => {
    const content = { confirm: true, count: 3, name: 'n', tags: ['a', 'b'] };
    expect(elicitationAnswerOf({ action: 'accept', content }, 'form')).toEqual({
      action: 'accept',
      content,
    });
    expect(elicitationAnswerOf({ action: 'accept' }, 'form')).toEqual({ action: 'accept' });
    expect(elicitationAnswerOf({ action: 'accept', content: null }, 'form')).toEqual({
      action: 'accept',
    });
    expect(elicitationAnswerOf({ action: 'decline', content }, 'form')).toEqual({
      action: 'decline',
    });
    expect(elicitationAnswerOf({ action: 'cancel', _meta: { x: 1 } }, 'form')).toEqual({
      action: 'cancel',
    });
    expect(elicitationAnswerOf({ action: 'accept', content }, 'url')).toEqual({ action: 'accept' });
  });

  it.each([
    ['no object', 'accept'],
    ['an array', [{ action: 'accept' }]],
    ['no action', { content: {} }],
    ['an unknown action', { action: 'ACCEPT' }],
    ['a non-string action', { action: 1 }],
    ['content that is a list', { action: 'accept', content: [] }],
    ['a nested object', { action: 'accept', content: { a: { b: 1 } } }],
    ['a list of numbers', { action: 'accept', content: { a: [1] } }],
    ['a null member', { action: 'accept', content: { a: null } }],
    ['a non-finite number', { action: 'accept', content: { a: Number.POSITIVE_INFINITY } }],
    [
      'too many members',
      {
        action: 'accept',
        content: Object.fromEntries(
          Array.from({ length: MAX_CONTENT_MEMBERS + 1 }, (_, i) => [`k${i}`, 1]),
        ),
      },
    ],
    ['a long member name', { action: 'accept', content: { ['k'.repeat(257)]: 1 } }],
    [
      'a long string',
      { action: 'accept', content: { a: 'x'.repeat(MAX_CONTENT_STRING_LENGTH + 1) } },
    ],
    [
      'a long list',
      { action: 'accept', content: { a: Array(MAX_CONTENT_LIST_LENGTH + 1).fill('x') } },
    ],
  ])('refuses %s', (_what, result) => {
    expect(elicitationAnswerOf(result, 'form')).toBeUndefined();
  });

  it('keeps a `__proto__` member as a member, never as a prototype', () => {
    const result = JSON.parse('{"action":"accept","content":{"__proto__":"x","ok":true}}');
    const answer = elicitationAnswerOf(result, 'form')!;
    expect(Object.getPrototypeOf(answer.content)).toBe(Object.prototype);
    expect(Object.keys(answer.content!)).toEqual(['__proto__', 'ok']);
  });

  it('never throws, and what it takes is a valid answer, on any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom('form', 'url'), (value, mode) => {
        const answer = elicitationAnswerOf(value, mode as 'form' | 'url');
        if (answer === undefined) return;
        expect(['accept', 'decline', 'cancel']).toContain(answer.action);
        if (answer.content !== undefined) {
          expect(answer.action).toBe('accept');
          expect(mode).toBe('form');
          for (const member of Object.values(answer.content)) {
            expect(['string', 'number', 'boolean', 'object']).toContain(typeof member);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
