/**
 * Shared setup of the server tests: a real registry with the two fake connectors, a
 * token service with one session, and the app or a listening server over them.
 */
import {
  buildConnectorApp,
  type ConnectorApp,
  type ConnectorMCPRegistry,
  type ConnectorServerOptions,
  createConnectorMCPRegistry,
  createTokenService,
  type TokenService,
} from '@tutti/core/internal';
import { type FakeUpstream, githubUpstream, notesUpstream } from './fake-upstream.js';

/** Port the Host header names in `app.inject()` tests (no socket is opened). */
export const INJECT_PORT = 45_678;

/** Everything a server test works with. */
export interface World {
  readonly registry: ConnectorMCPRegistry;
  readonly tokens: TokenService;
  readonly gh: FakeUpstream;
  readonly notes: FakeUpstream;
  /** Token of session `sess-1` in workspace `ws-1`. */
  readonly token: string;
}

/** A registry with `gh` (generation 1) and `notes` (generation 1), and one issued token. */
export function createWorld(): World {
  const registry = createConnectorMCPRegistry();
  const gh = githubUpstream();
  const notes = notesUpstream();
  registry.commit('gh', 1, gh, gh.tools);
  registry.commit('notes', 1, notes, notes.tools);
  const tokens = createTokenService();
  return { registry, tokens, gh, notes, token: tokens.issue('ws-1', 'sess-1') };
}

/** The app over `world`, for `app.inject()`. */
export function createApp(
  world: World,
  options: Partial<ConnectorServerOptions> = {},
): ConnectorApp {
  return buildConnectorApp({
    registry: world.registry,
    tokens: world.tokens,
    ...options,
    port: () => INJECT_PORT,
  });
}

/** Headers of an authorized JSON POST as a 2025 client sends it. */
export function legacyHeaders(token: string): Record<string, string> {
  return {
    host: `127.0.0.1:${INJECT_PORT}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
  };
}

/** The `_meta` envelope of a 2026-07-28 request. */
export const ENVELOPE = Object.freeze({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** Body and headers of a 2026-07-28 request, with the standard headers a client sends. */
export function modernRequest(
  token: string,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  extraHeaders: Record<string, string> = {},
): { headers: Record<string, string>; payload: unknown } {
  const headers: Record<string, string> = {
    ...legacyHeaders(token),
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  if (method === 'tools/call' && typeof params.name === 'string') headers['mcp-name'] = params.name;
  return {
    headers: { ...headers, ...extraHeaders },
    payload: { jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } },
  };
}
