/**
 * Test doubles of the session host's dependencies: a connector port that can be made to
 * fail, and a token service wrapper that records issues and revocations (never tokens).
 */
import type { ConnectorRuntimePort, SessionTokenService } from '@tutti/core/internal';

/** A connector port with fixed answers; `failing = true` makes every method throw. */
export function createFakeConnector(
  options: { url?: string; binDir?: string; skillRoots?: string[] } = {},
): ConnectorRuntimePort & { failing: boolean } {
  const port = {
    failing: false,
    endpointUrl: () => answer(port, options.url ?? 'http://127.0.0.1:4711/mcp/connector'),
    shimBinDir: () => answer(port, options.binDir ?? '/tutti/bin'),
    skillRoots: () => answer(port, options.skillRoots ?? ['/tutti/skills/github']),
  };
  return port;
}

function answer<T>(port: { failing: boolean }, value: T): T {
  if (port.failing) throw new Error('connector subsystem is down');
  return value;
}

/** Events a {@link recordTokens} wrapper saw. */
export interface TokenEvents {
  readonly issued: string[];
  readonly revoked: string[];
}

/** Wraps a token service so a test can see which sessions got or lost tokens. */
export function recordTokens<T extends SessionTokenService>(
  tokens: T,
): { tokens: T; events: TokenEvents } {
  const events: TokenEvents = { issued: [], revoked: [] };
  const wrapped = Object.create(tokens) as T;
  wrapped.issue = (workspaceId, agentSessionId) => {
    events.issued.push(agentSessionId);
    return tokens.issue(workspaceId, agentSessionId);
  };
  wrapped.revokeSession = (workspaceId, agentSessionId) => {
    events.revoked.push(agentSessionId);
    return tokens.revokeSession(workspaceId, agentSessionId);
  };
  return { tokens: wrapped, events };
}
