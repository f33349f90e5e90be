import { describe, expect, it } from 'vitest';
import { createTokenService, type RevokeReason, type TokenSession } from './token-service.js';

describe('createTokenService', () => {
  it('issues 32 random bytes as base64url and verifies them to the session', () => {
    const tokens = createTokenService();
    const token = tokens.issue('ws1', 'sess1');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(tokens.verify(token)).toMatchObject({ workspaceId: 'ws1', agentSessionId: 'sess1' });
    expect(tokens.issue('ws1', 'sess2')).not.toBe(token);
  });

  it('rejects unknown, empty and altered tokens', () => {
    const tokens = createTokenService();
    const token = tokens.issue('ws1', 'sess1');
    expect(tokens.verify('')).toBeUndefined();
    expect(tokens.verify(`${token}x`)).toBeUndefined();
    expect(tokens.verify(token.slice(1))).toBeUndefined();
  });

  it('revokes the old token at once when the same session is issued again', () => {
    const tokens = createTokenService();
    const revoked: [TokenSession, RevokeReason][] = [];
    tokens.onRevoked((session, reason) => revoked.push([session, reason]));
    const first = tokens.issue('ws1', 'sess1');
    const firstSession = tokens.verify(first);
    const second = tokens.issue('ws1', 'sess1');
    expect(tokens.verify(first)).toBeUndefined();
    expect(tokens.verify(second)?.tokenId).not.toBe(firstSession?.tokenId);
    expect(revoked).toEqual([[firstSession, 'reissued']]);
  });

  it('keeps sessions of other workspaces apart', () => {
    const tokens = createTokenService();
    const a = tokens.issue('ws1', 'sess1');
    const b = tokens.issue('ws2', 'sess1');
    expect(tokens.revokeSession('ws1', 'sess1')).toBe(true);
    expect(tokens.verify(a)).toBeUndefined();
    expect(tokens.verify(b)?.workspaceId).toBe('ws2');
    expect(tokens.revokeSession('ws1', 'sess1')).toBe(false);
  });

  it('revokes every token on revokeAll and tells each listener once per token', () => {
    const tokens = createTokenService();
    const reasons: RevokeReason[] = [];
    const unsubscribe = tokens.onRevoked((_session, reason) => reasons.push(reason));
    const issued = [tokens.issue('ws1', 'a'), tokens.issue('ws1', 'b')];
    tokens.revokeAll();
    expect(issued.map((token) => tokens.verify(token))).toEqual([undefined, undefined]);
    expect(reasons).toEqual(['revoke-all', 'revoke-all']);
    unsubscribe();
    tokens.revokeAll();
    tokens.issue('ws1', 'c');
    tokens.revokeSession('ws1', 'c');
    expect(reasons).toHaveLength(2);
  });

  it('refuses to issue without a workspace or session id', () => {
    expect(() => createTokenService().issue('', 'x')).toThrow(TypeError);
  });
});
