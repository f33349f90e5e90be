import { describe, expect, it } from 'vitest';
import { TuttiError, formatMessage, isTuttiError } from './tutti-error.js';

describe('TuttiError', () => {
  it('fills the message template from its details', () => {
    const error = new TuttiError('TUTTI_ERR_REGISTRY_UNKNOWN_TOOL', { localName: 'gh_search' });
    expect(error.message).toBe(
      'Tool "gh_search" is not served by the connector server: list tools again.',
    );
    expect(error.code).toBe('TUTTI_ERR_REGISTRY_UNKNOWN_TOOL');
    expect(error.status).toBe(404);
    expect(isTuttiError(error, 'TUTTI_ERR_REGISTRY_UNKNOWN_TOOL')).toBe(true);
    expect(isTuttiError(error, 'TUTTI_ERR_REGISTRY_BAD_CURSOR')).toBe(false);
  });

  it('leaves placeholders without a detail as written', () => {
    expect(formatMessage('a {x} b {y}', { x: 1 })).toBe('a 1 b {y}');
  });

  it('writes one period where a value that ends a sentence meets the period after it', () => {
    expect(formatMessage('failed: {reason}. Retry.', { reason: 'it broke.' })).toBe(
      'failed: it broke. Retry.',
    );
    expect(formatMessage('failed: {reason}. Retry.', { reason: 'cut off…' })).toBe(
      'failed: cut off… Retry.',
    );
    expect(formatMessage('failed: {reason}. Retry.', { reason: 'it broke' })).toBe(
      'failed: it broke. Retry.',
    );
    expect(formatMessage('{a}.{b}', { a: 'x.', b: 'y' })).toBe('x.y');
  });
});
