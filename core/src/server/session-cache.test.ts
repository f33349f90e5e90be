import { describe, expect, it, vi } from 'vitest';
import { createTokenService } from '../auth/index.js';
import { createSessionCache } from './session-cache.js';

describe('createSessionCache', () => {
  it('answers a verified header from the cache without verifying the token again', () => {
    const tokens = createTokenService();
    const token = tokens.issue('ws', 'sess');
    const verify = vi.spyOn(tokens, 'verify');
    const cache = createSessionCache(tokens);
    const first = cache.authenticate(`Bearer ${token}`);
    const second = cache.authenticate(`Bearer ${token}`);
    expect(first).toMatchObject({ workspaceId: 'ws', agentSessionId: 'sess' });
    expect(second).toBe(first);
    expect(verify).toHaveBeenCalledTimes(1);
    cache.close();
  });

  it('sends an unknown token through the token service every time', () => {
    const tokens = createTokenService();
    tokens.issue('ws', 'sess');
    const verify = vi.spyOn(tokens, 'verify');
    const cache = createSessionCache(tokens);
    expect(cache.authenticate('Bearer not-a-token')).toBe('invalid');
    expect(cache.authenticate('Bearer not-a-token')).toBe('invalid');
    expect(verify).toHaveBeenCalledTimes(2);
    cache.close();
  });

  it('tells a missing token from a malformed header and an invalid token', () => {
    const cache = createSessionCache(createTokenService());
    expect(cache.authenticate(undefined)).toBe('missing');
    expect(cache.authenticate('Basic abc')).toBe('missing');
    expect(cache.authenticate('Bearer abc')).toBe('invalid');
    cache.close();
  });

  it('drops a session at once when it is revoked, re-issued or all tokens end', () => {
    const tokens = createTokenService();
    const cache = createSessionCache(tokens);
    const a = tokens.issue('ws', 'a');
    const b = tokens.issue('ws', 'b');
    const c = tokens.issue('ws', 'c');
    for (const token of [a, b, c])
      expect(typeof cache.authenticate(`Bearer ${token}`)).toBe('object');
    tokens.revokeSession('ws', 'a');
    const b2 = tokens.issue('ws', 'b');
    expect(cache.authenticate(`Bearer ${a}`)).toBe('invalid');
    expect(cache.authenticate(`Bearer ${b}`)).toBe('invalid');
    expect(typeof cache.authenticate(`Bearer ${b2}`)).toBe('object');
    expect(typeof cache.authenticate(`Bearer ${c}`)).toBe('object');
    tokens.revokeAll();
    expect(cache.authenticate(`Bearer ${b2}`)).toBe('invalid');
    expect(cache.authenticate(`Bearer ${c}`)).toBe('invalid');
    cache.close();
  });

  it('keeps at most its size of headers, dropping the oldest first', () => {
    const tokens = createTokenService();
    const cache = createSessionCache(tokens, 2);
    const issued = ['a', 'b', 'c'].map((id) => tokens.issue('ws', id));
    for (const token of issued) cache.authenticate(`Bearer ${token}`);
    const verify = vi.spyOn(tokens, 'verify');
    cache.authenticate(`Bearer ${issued[2]}`);
    cache.authenticate(`Bearer ${issued[1]}`);
    expect(verify).not.toHaveBeenCalled();
    expect(typeof cache.authenticate(`Bearer ${issued[0]}`)).toBe('object');
    expect(verify).toHaveBeenCalledTimes(1);
    cache.close();
  });

  it('verifies every header once closed, as revocations are no longer followed', () => {
    const tokens = createTokenService();
    const cache = createSessionCache(tokens);
    const token = tokens.issue('ws', 'sess');
    cache.authenticate(`Bearer ${token}`);
    cache.close();
    const verify = vi.spyOn(tokens, 'verify');
    expect(typeof cache.authenticate(`Bearer ${token}`)).toBe('object');
    tokens.revokeSession('ws', 'sess');
    expect(cache.authenticate(`Bearer ${token}`)).toBe('invalid');
    expect(verify).toHaveBeenCalledTimes(2);
  });
});
