import { describe, expect, it } from 'vitest';
import { createTokenService } from '../auth/index.js';
import type { PreparedRuntime } from '../contracts/index.js';
import { isTuttiError } from '../errors/index.js';
import { createSessionHooks } from './hooks.js';
import { DefaultPreparer, type PlainReason } from './preparer.js';
import { createFakeConnector, recordTokens } from '@tutti/test-kit/core/fake-connector';
import type { SessionContext } from './session-types.js';

const session: SessionContext = Object.freeze({
  agentSessionId: 'sess-1',
  workspaceId: 'ws-1',
  provider: 'test',
  capabilities: { httpMcp: true, listChanged: false },
  permissions: 'ask',
});

function setup() {
  const hooks = createSessionHooks();
  const connector = createFakeConnector({ binDir: '/state/bin', skillRoots: ['/skills/gh'] });
  const real = createTokenService();
  const { tokens, events } = recordTokens(real);
  const plain: PlainReason[] = [];
  const preparer = new DefaultPreparer({
    hooks,
    connector,
    tokens,
    guidance: ({ skillRoots }) => `use the connector tools (${skillRoots.length} skill roots)`,
    onPlain: (_session, reason) => plain.push(reason),
  });
  const prepare = (...args: [{ httpMcp: boolean } | undefined] | []) =>
    preparer.prepare({
      session,
      cwd: '/work',
      env: { PATH: '/usr/bin:/state/bin' },
      probe: args.length === 0 ? { httpMcp: true } : args[0],
    });
  return { hooks, connector, real, events, plain, prepare };
}

/** A token service that keeps the tokens it issued, for a test to verify them after. */
function keepIssued() {
  const real = createTokenService();
  const issued: string[] = [];
  const tokens = Object.create(real) as typeof real;
  tokens.issue = (workspaceId, agentSessionId) => {
    const token = real.issue(workspaceId, agentSessionId);
    issued.push(token);
    return token;
  };
  return { tokens, issued, real };
}

describe('DefaultPreparer', () => {
  it('builds the connector binding with the session bearer token, shim PATH, skills and guidance', async () => {
    const { real, prepare } = setup();
    const runtime = await prepare();
    expect(runtime.mcpServers).toHaveLength(1);
    const [binding] = runtime.mcpServers;
    expect(binding).toMatchObject({
      name: 'connector',
      type: 'http',
      url: 'http://127.0.0.1:4711/mcp/connector',
    });
    const token = binding!.headers.Authorization!.replace(/^Bearer /, '');
    expect(real.verify(token)).toMatchObject({ workspaceId: 'ws-1', agentSessionId: 'sess-1' });
    expect(runtime.env.PATH).toBe('/state/bin:/usr/bin');
    expect(runtime.skillRoots).toEqual(['/skills/gh']);
    expect(runtime.guidance).toBe('use the connector tools (1 skill roots)');
  });

  it("puts the shim folder before the daemon's cleaned PATH when the request names no PATH", async () => {
    const preparer = new DefaultPreparer({
      hooks: createSessionHooks(),
      connector: createFakeConnector({ binDir: '/state/bin' }),
      tokens: createTokenService(),
      defaultPath: '/usr/local/bin:/usr/bin',
    });
    const runtime = await preparer.prepare({
      session,
      cwd: '/work',
      env: {},
      probe: { httpMcp: true },
    });
    expect(runtime.env.PATH).toBe('/state/bin:/usr/local/bin:/usr/bin');
    const own = await preparer.prepare({
      session: { ...session, agentSessionId: 'sess-2' },
      cwd: '/work',
      env: { PATH: '/opt/bin' },
      probe: { httpMcp: true },
    });
    expect(own.env.PATH).toBe('/state/bin:/opt/bin');
  });

  it('gives a plain runtime and issues no token when the agent has no HTTP MCP', async () => {
    const { events, plain, prepare } = setup();
    const runtime = await prepare({ httpMcp: false });
    expect(runtime).toEqual({
      cwd: '/work',
      env: { PATH: '/usr/bin:/state/bin' },
      mcpServers: [],
      skillRoots: [],
    });
    expect(events.issued).toEqual([]);
    expect(plain).toEqual(['no-http-mcp']);
  });

  it('gives a plain runtime when the capability probe failed', async () => {
    const { events, plain, prepare } = setup();
    const runtime = await prepare(undefined);
    expect(runtime.mcpServers).toEqual([]);
    expect(runtime.guidance).toBeUndefined();
    expect(events.issued).toEqual([]);
    expect(plain).toEqual(['probe-failed']);
  });

  it('gives a plain runtime when the connector subsystem fails', async () => {
    const { connector, plain, prepare } = setup();
    connector.failing = true;
    const runtime = await prepare();
    expect(runtime.mcpServers).toEqual([]);
    expect(runtime.skillRoots).toEqual([]);
    expect(plain).toEqual(['connector-unavailable']);
  });

  it('revokes the token it issued when a later step of the binding fails, and degrades to plain', async () => {
    const { tokens, issued, real } = keepIssued();
    const plain: PlainReason[] = [];
    const preparer = new DefaultPreparer({
      hooks: createSessionHooks(),
      connector: createFakeConnector(),
      tokens,
      guidance: () => {
        throw new Error('the guidance template is broken');
      },
      onPlain: (_session, reason) => plain.push(reason),
    });
    const runtime = await preparer.prepare({ session, cwd: '/work', probe: { httpMcp: true } });
    expect(runtime.mcpServers).toEqual([]);
    expect(plain).toEqual(['connector-unavailable']);
    expect(issued).toHaveLength(1);
    expect(real.verify(issued[0]!)).toBeUndefined();
  });

  it.each([
    [
      'throws',
      async (): Promise<PreparedRuntime> => {
        throw new Error('the audit log is full');
      },
    ],
    ['drops the binding', async (runtime: PreparedRuntime) => ({ ...runtime, mcpServers: [] })],
  ])('revokes the token it issued when a prepare tap %s', async (_, tap) => {
    const { tokens, issued, real } = keepIssued();
    const hooks = createSessionHooks();
    hooks.prepare.tapPromise('Breaks', tap);
    const preparer = new DefaultPreparer({ hooks, connector: createFakeConnector(), tokens });
    await expect(
      preparer.prepare({ session, cwd: '/work', probe: { httpMcp: true } }),
    ).rejects.toThrow();
    expect(issued).toHaveLength(1);
    expect(real.verify(issued[0]!)).toBeUndefined();
  });

  it('lets prepare taps add to the runtime and returns it deep-frozen', async () => {
    const { hooks, prepare } = setup();
    hooks.prepare.tapPromise('AddEnv', async (runtime) => ({
      ...runtime,
      env: { ...runtime.env, EXTRA: '1' },
    }));
    const runtime = await prepare();
    expect(runtime.env.EXTRA).toBe('1');
    expect(Object.isFrozen(runtime.mcpServers[0]!.headers)).toBe(true);
    expect(() => {
      (runtime.mcpServers as PreparedRuntime['mcpServers']).pop();
    }).toThrow(TypeError);
  });

  it('fails loudly, naming the tap, when a prepare tap drops mcpServers', async () => {
    const { hooks, prepare } = setup();
    hooks.prepare.tapPromise('LosesServers', async (runtime) => ({ ...runtime, mcpServers: [] }));
    hooks.prepare.tapPromise('NeverReached', async (runtime) => runtime);
    const error = await prepare().catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_SESSION_BINDING_DROPPED')).toBe(true);
    expect((error as Error).message).toContain('"LosesServers"');
    expect((error as Error).message).not.toMatch(/Bearer/);
  });

  it('fails loudly when a prepare tap swaps the binding for another one', async () => {
    const { hooks, prepare } = setup();
    hooks.prepare.tapPromise('SwapsToken', async (runtime) => ({
      ...runtime,
      mcpServers: runtime.mcpServers.map((binding) => ({
        ...binding,
        headers: { Authorization: 'Bearer forged' },
      })),
    }));
    await expect(prepare()).rejects.toMatchObject({ code: 'TUTTI_ERR_SESSION_BINDING_DROPPED' });
  });

  it('rejects a runtime a tap made invalid', async () => {
    const { hooks, prepare } = setup();
    hooks.prepare.tapPromise('EmptiesCwd', async (runtime) => ({ ...runtime, cwd: '' }));
    await expect(prepare()).rejects.toMatchObject({ code: 'TUTTI_ERR_SESSION_INVALID_RUNTIME' });
  });
});
