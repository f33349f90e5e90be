/** One-time login codes of the dashboard: issued once, redeemed once, for 5 minutes. */
import { describe, expect, it } from 'vitest';
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
