/**
 * End to end with a real opencode (`opencode acp`, offline env, HOME/XDG at temp dirs): a
 * session whose binding points at the project's loopback `connector` server on 127.0.0.1;
 * opencode connects with the session's bearer token and lists the tools. Then a tool-list
 * change refreshes the live session through `session/resume` with a new token.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentSessionHost } from '@tutti/core';
import {
  type ConnectorMCPRegistry,
  createConnectorMCPRegistry,
  discoverAndLoadPlugins,
  createTokenService,
  type TokenService,
  type ConnectorServer,
  createConnectorServer,
} from '@tutti/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const OPENCODE = join(REPO, 'node_modules', '.bin', 'opencode');

/** What the server saw, in order: which session each verified token belongs to, and lists. */
type Seen = { kind: 'verify'; session: string | undefined } | { kind: 'list' };

function observe(tokens: TokenService, registry: ConnectorMCPRegistry) {
  const seen: Seen[] = [];
  const waiters: { check: () => boolean; resolve: () => void }[] = [];
  const changed = () => {
    for (const waiter of [...waiters]) {
      if (waiter.check()) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const observedTokens: TokenService = {
    ...tokens,
    verify: (token) => {
      const session = tokens.verify(token);
      seen.push({ kind: 'verify', session: session?.agentSessionId });
      changed();
      return session;
    },
  };
  const observedRegistry: ConnectorMCPRegistry = {
    ...registry,
    snapshot: () => {
      seen.push({ kind: 'list' });
      changed();
      return registry.snapshot();
    },
  };
  /** Resolves once a tools/list follows a request authenticated with a token issued at or after `from`. */
  const listedWith = (from: number, session: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        const after = seen.slice(from);
        const first = after.findIndex(
          (event) => event.kind === 'verify' && event.session === session,
        );
        return first >= 0 && after.slice(first).some((event) => event.kind === 'list');
      };
      if (check()) resolve();
      else waiters.push({ check, resolve });
    });
  return { seen, observedTokens, observedRegistry, listedWith };
}

describe('opencode over ACP against the loopback connector server', () => {
  const home = mkdtempSync(join(tmpdir(), 'tutti-opencode-'));
  const tokens = createTokenService();
  const registry = createConnectorMCPRegistry();
  const watch = observe(tokens, registry);
  const upstream = { callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }) };
  let server: ConnectorServer;
  let host: AgentSessionHost;

  beforeAll(async () => {
    registry.commit('demo', 1, upstream, [
      { name: 'echo', description: 'Echo the text', inputSchema: { type: 'object' } },
    ]);
    server = await createConnectorServer({
      registry: watch.observedRegistry,
      tokens: watch.observedTokens,
    });
    mkdirSync(join(home, 'bin'));
    host = new AgentSessionHost({
      connector: {
        endpointUrl: () => server.url,
        shimBinDir: () => join(home, 'bin'),
        skillRoots: () => [],
      },
      tokens,
    });
    // The built-in ACP engine and the shipped opencode descriptor, found and loaded the way
    // the daemon does it.
    const results = await discoverAndLoadPlugins(host, { repoRoot: REPO });
    expect(results.find((result) => result.name === '@tutti/provider-acp')).toMatchObject({
      source: 'builtin',
      status: 'applied',
      providers: ['acp'],
    });
    expect(results.find((result) => result.name === '@tutti/agent-descriptors')).toMatchObject({
      source: 'repo',
      status: 'applied',
    });
    expect(host.listProviders().map((provider) => provider.name)).toContain('opencode');
  });

  afterAll(async () => {
    await host?.close();
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('connects with the session bearer token, lists the tools, and takes a new binding on refresh', async () => {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
    };
    const started = performance.now();
    const info = await host.createSession({
      provider: 'opencode',
      workspaceId: 'ws-e2e',
      cwd: home,
      env,
      launch: { command: OPENCODE },
    });
    const sessionReady = performance.now();
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    await watch.listedWith(0, info.id);
    const listed = performance.now();

    const before = watch.seen.length;
    registry.commit('demo', 2, upstream, [
      { name: 'echo', description: 'Echo the text', inputSchema: { type: 'object' } },
      { name: 'shout', description: 'Echo louder', inputSchema: { type: 'object' } },
    ]);
    const records = await host.refreshSessions(registry.snapshot().version);
    expect(records.get(info.id)?.strategy).toBe('native-reload');
    await watch.listedWith(before, info.id);
    const relisted = performance.now();
    expect(watch.seen.some((event) => event.kind === 'verify' && event.session === undefined)).toBe(
      false,
    );
    console.info(
      `opencode: session/new ready ${(sessionReady - started).toFixed(0)} ms, ` +
        `tools/list with token ${(listed - started).toFixed(0)} ms, ` +
        `re-list after session/resume ${(relisted - listed).toFixed(0)} ms`,
    );
    await host.closeSession(info.id);
  });
});
