import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSessionCache } from '../server/session-cache.js';
import { createTokenService } from './token-service.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('token lifetime', () => {
  it('keeps a token valid after a long idle time, until its session ends', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const tokens = createTokenService();
    const cache = createSessionCache(tokens);
    const token = tokens.issue('ws', 'idle-session');
    const header = `Bearer ${token}`;
    expect(cache.authenticate(header)).toMatchObject({ agentSessionId: 'idle-session' });
    // A year and a half of idle time, with every timer run.
    for (let day = 0; day < 540; day++) vi.advanceTimersByTime(24 * 60 * 60 * 1000);
    vi.setSystemTime(new Date('2027-07-01T00:00:00Z'));
    expect(tokens.verify(token)).toMatchObject({
      workspaceId: 'ws',
      agentSessionId: 'idle-session',
    });
    expect(cache.authenticate(header)).toMatchObject({ agentSessionId: 'idle-session' });
    expect(tokens.revokeSession('ws', 'idle-session')).toBe(true);
    expect(tokens.verify(token)).toBeUndefined();
    expect(cache.authenticate(header)).toBe('invalid');
    cache.close();
  });
});
