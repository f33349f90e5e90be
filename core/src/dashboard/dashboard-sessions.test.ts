/**
 * The dashboard's sessions on a manual clock: their tokens, and the signal that ends what a
 * session opened, at logout, at expiry and when the session cap revokes it.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '@tutti/test-kit/core/manual-clock';
import { createDashboardSessions, MAX_SESSIONS, SESSION_TTL_MS } from './dashboard-sessions.js';

describe('dashboard sessions', () => {
  it('issues a random URL-safe token per session that only finds its own session', () => {
    const sessions = createDashboardSessions(createManualClock());
    const first = sessions.start();
    const second = sessions.start();
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.token).not.toBe(second.token);
    expect(sessions.find(first.token)).toBeDefined();
    expect(sessions.find(first.token)).not.toBe(sessions.find(second.token));
    expect(sessions.find('x'.repeat(43))).toBeUndefined();
    expect(sessions.find('')).toBeUndefined();
    expect(sessions.find(undefined)).toBeUndefined();
    expect(createDashboardSessions(createManualClock()).find(first.token)).toBeUndefined();
  });

  it('ends a session at logout, aborting its signal with "logout"', () => {
    const sessions = createDashboardSessions(createManualClock());
    const { token } = sessions.start();
    const other = sessions.start();
    const ended = sessions.find(token)!.ended;
    expect(ended.aborted).toBe(false);
    expect(sessions.end(token)).toBe(true);
    expect(ended.aborted).toBe(true);
    expect(ended.reason).toBe('logout');
    expect(sessions.find(token)).toBeUndefined();
    expect(sessions.end(token)).toBe(false);
    expect(sessions.find(other.token)!.ended.aborted).toBe(false);
  });

  it('ends a session when its twelve hours are over, aborting its signal with "expired"', () => {
    const clock = createManualClock();
    const sessions = createDashboardSessions(clock);
    const { token, expiresAt } = sessions.start();
    expect(expiresAt).toBe(clock.now() + SESSION_TTL_MS);
    const ended = sessions.find(token)!.ended;
    clock.advance(SESSION_TTL_MS - 1);
    expect(ended.aborted).toBe(false);
    expect(sessions.find(token)).toBeDefined();
    // The expiry fires by itself, with no request asking.
    clock.advance(1);
    expect(ended.aborted).toBe(true);
    expect(ended.reason).toBe('expired');
    expect(sessions.find(token)).toBeUndefined();
  });

  it('refuses an expired token even before its timer ran', () => {
    let now = 0;
    const sessions = createDashboardSessions({ now: () => now, later: () => () => undefined });
    const { token } = sessions.start();
    const ended = sessions.find(token)!.ended;
    now = SESSION_TTL_MS;
    expect(sessions.find(token)).toBeUndefined();
    expect(ended.reason).toBe('expired');
  });

  it('revokes the oldest session when one more starts over the cap', () => {
    const sessions = createDashboardSessions(createManualClock());
    const tokens = Array.from({ length: MAX_SESSIONS }, () => sessions.start().token);
    const oldest = sessions.find(tokens[0])!.ended;
    sessions.start();
    expect(oldest.aborted).toBe(true);
    expect(oldest.reason).toBe('revoked');
    expect(sessions.find(tokens[0])).toBeUndefined();
    expect(tokens.slice(1).every((token) => sessions.find(token) !== undefined)).toBe(true);
  });
});
