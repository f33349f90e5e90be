import { describe, expect, it } from 'vitest';
import { createCookieSessions } from './cookie-sessions.js';
import { createLoginCodes, LOGIN_CODE_TTL_MS } from './login-codes.js';

describe('dashboard login codes', () => {
  it('redeems a code once', () => {
    const codes = createLoginCodes();
    const { code } = codes.issue();
    expect(codes.redeem(code)).toBe(true);
    expect(codes.redeem(code)).toBe(false);
  });

  it('refuses a code once its time is over, and forgets it', () => {
    let now = 1_000;
    const codes = createLoginCodes({ now: () => now });
    const { code, expiresAt } = codes.issue();
    expect(expiresAt).toBe(1_000 + LOGIN_CODE_TTL_MS);
    now = expiresAt;
    expect(codes.redeem(code)).toBe(false);
    now = 1_000;
    expect(codes.redeem(code)).toBe(false);
  });

  it('refuses a string it never issued and keeps at most 16 codes', () => {
    const codes = createLoginCodes();
    expect(codes.redeem('')).toBe(false);
    expect(codes.redeem('x'.repeat(43))).toBe(false);
    const first = codes.issue().code;
    const later = Array.from({ length: 16 }, () => codes.issue().code);
    expect(codes.redeem(first)).toBe(false);
    expect(later.every((code) => codes.redeem(code))).toBe(true);
  });

  it('issues codes that differ and hold only URL-safe characters', () => {
    const codes = createLoginCodes();
    const issued = new Set(Array.from({ length: 8 }, () => codes.issue().code));
    expect(issued.size).toBe(8);
    for (const code of issued) expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('dashboard cookie sessions', () => {
  it('names the cookie after the port and sets it HttpOnly and SameSite=Strict', () => {
    const sessions = createCookieSessions(() => 4100);
    const set = sessions.start();
    expect(set).toMatch(
      /^tutti_dashboard_4100=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const cookie = set.split(';')[0]!;
    expect(sessions.verify(`other=1; ${cookie}`)).toBe(true);
    expect(createCookieSessions(() => 4101).verify(cookie)).toBe(false);
  });

  it('ends a session on end and after twelve hours', () => {
    let now = 0;
    const sessions = createCookieSessions(
      () => 1,
      () => now,
    );
    const first = sessions.start().split(';')[0]!;
    const second = sessions.start().split(';')[0]!;
    expect(sessions.end(first)).toMatch(/Max-Age=0$/);
    expect(sessions.verify(first)).toBe(false);
    expect(sessions.verify(second)).toBe(true);
    now = 12 * 60 * 60_000;
    expect(sessions.verify(second)).toBe(false);
    expect(sessions.verify(undefined)).toBe(false);
  });
});
