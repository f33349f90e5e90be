/**
 * Per-session bearer tokens of the loopback `connector` server. One random token per agent
 * session, bound to (workspace id, agent session id); re-issuing for a session revokes its
 * old token at once. No TTL: tokens end only when a session, account or daemon ends them.
 * Tokens are never stored: only their sha256, compared in constant time.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';

/** The agent session a verified token belongs to. Holds no secret; safe to log. */
export interface TokenSession {
  /** Random id of this one token (not the token), e.g. to key its in-flight calls. */
  readonly tokenId: string;
  readonly workspaceId: string;
  readonly agentSessionId: string;
}

/** Why a token stopped being valid. */
export type RevokeReason = 'reissued' | 'session-ended' | 'revoke-all';

/** Listener of revoked tokens; `session` is the very object `verify` returned. */
export type RevokedListener = (session: TokenSession, reason: RevokeReason) => void;

/** Issues, verifies and revokes the bearer tokens of agent sessions. */
export interface TokenService {
  /** Issues a new token (32 random bytes, base64url) and revokes the session's old one. */
  issue(workspaceId: string, agentSessionId: string): string;
  /** The session of a live token, or undefined for an unknown or revoked one. */
  verify(token: string): TokenSession | undefined;
  /** Revokes the session's token; returns true when there was one. */
  revokeSession(workspaceId: string, agentSessionId: string): boolean;
  /** Revokes every token (account logout, daemon shutdown). */
  revokeAll(): void;
  /** Subscribes to revocations; returns the unsubscribe function. */
  onRevoked(listener: RevokedListener): () => void;
}

interface Entry {
  readonly digest: Buffer;
  readonly session: TokenSession;
}

/** Bytes of randomness in one token. */
export const TOKEN_BYTES = 32;

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function sessionKey(workspaceId: string, agentSessionId: string): string {
  return JSON.stringify([workspaceId, agentSessionId]);
}

/**
 * Creates an in-memory token service.
 * @example const tokens = createTokenService(); const t = tokens.issue('ws1', 'sess1');
 */
export function createTokenService(): TokenService {
  const byDigest = new Map<string, Entry>();
  const bySession = new Map<string, Entry>();
  const events = new EventEmitter();
  events.setMaxListeners(0);

  const drop = (entry: Entry, reason: RevokeReason): void => {
    byDigest.delete(entry.digest.toString('hex'));
    const key = sessionKey(entry.session.workspaceId, entry.session.agentSessionId);
    if (bySession.get(key) === entry) bySession.delete(key);
    events.emit('revoked', entry.session, reason);
  };

  return {
    issue(workspaceId, agentSessionId) {
      if (!workspaceId || !agentSessionId) {
        throw new TypeError('issue() needs a workspace id and an agent session id');
      }
      const previous = bySession.get(sessionKey(workspaceId, agentSessionId));
      if (previous) drop(previous, 'reissued');
      const token = randomBytes(TOKEN_BYTES).toString('base64url');
      const entry: Entry = {
        digest: digestOf(token),
        session: Object.freeze({ tokenId: randomUUID(), workspaceId, agentSessionId }),
      };
      byDigest.set(entry.digest.toString('hex'), entry);
      bySession.set(sessionKey(workspaceId, agentSessionId), entry);
      return token;
    },
    verify(token) {
      if (typeof token !== 'string' || token.length === 0) return undefined;
      const digest = digestOf(token);
      const entry = byDigest.get(digest.toString('hex'));
      // The map lookup finds the candidate; the constant-time compare is what decides.
      if (!entry || !timingSafeEqual(entry.digest, digest)) return undefined;
      return entry.session;
    },
    revokeSession(workspaceId, agentSessionId) {
      const entry = bySession.get(sessionKey(workspaceId, agentSessionId));
      if (!entry) return false;
      drop(entry, 'session-ended');
      return true;
    },
    revokeAll() {
      for (const entry of [...bySession.values()]) drop(entry, 'revoke-all');
    },
    onRevoked(listener) {
      events.on('revoked', listener);
      return () => {
        events.off('revoked', listener);
      };
    },
  };
}
