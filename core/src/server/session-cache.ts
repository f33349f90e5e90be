/**
 * A small cache from a verified `Authorization` header value to its token session, so a
 * live session's requests skip the sha256 of the token. Only headers the token service
 * verified are ever cached; an unknown or revoked token misses and goes through
 * `TokenService.verify` (the constant-time path) every time. Revocation drops the entry at
 * once. The cached header values stay in this process's memory only, like the tokens. The
 * bearer header parse lives here too, with its one user on the call path.
 */
import type { TokenService, TokenSession } from '../auth/index.js';

/** Most header values kept; the oldest one is dropped beyond that. */
export const SESSION_CACHE_SIZE = 256;

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return match ? match[1] : undefined;
}

/** Authenticates `Authorization` header values, remembering the verified ones. */
export interface SessionCache {
  /** The session of the header's bearer token, or why there is none. */
  authenticate(authorization: string | undefined): TokenSession | 'missing' | 'invalid';
  /** Stops listening to revocations and forgets every entry; later calls only verify. */
  close(): void;
}

/** Creates a cache in front of `tokens`. */
export function createSessionCache(tokens: TokenService, size = SESSION_CACHE_SIZE): SessionCache {
  const byHeader = new Map<string, TokenSession>();
  let closed = false;
  const stopListening = tokens.onRevoked((session) => {
    for (const [header, cached] of byHeader) if (cached === session) byHeader.delete(header);
  });
  return {
    authenticate(authorization) {
      if (authorization === undefined) return 'missing';
      const cached = byHeader.get(authorization);
      if (cached) return cached;
      const token = bearerTokenOf(authorization);
      if (token === undefined) return 'missing';
      const session = tokens.verify(token);
      if (!session) return 'invalid';
      if (closed) return session;
      if (byHeader.size >= size) byHeader.delete(byHeader.keys().next().value as string);
      byHeader.set(authorization, session);
      return session;
    },
    close() {
      closed = true;
      stopListening();
      byHeader.clear();
    },
  };
}
