import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, writeRelease } from '@tutti/test-kit';
import { groupGone } from '@tutti/test-kit/processes';
import type { ConnectorRuntime } from './connector-runtime.js';
import { createTestRuntime } from '@tutti/test-kit/core/test-runtime';

const runtimes: ConnectorRuntime[] = [];

async function setup(overrides: Parameters<typeof createTestRuntime>[0] = {}) {
  const context = await createTestRuntime(overrides);
  runtimes.push(context.runtime);
  return context;
}

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await cleanUp();
});

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('connector runtime', () => {
  it('starts an installed connector, lists its tools and commits them at its revision', async () => {
    const { store, registry, catalog, runtime } = await setup();
    const installed = await store.install(await writeRelease({ key: 'kit', serverArgs: [] }));
    await runtime.reconcile();

    const binding = registry.resolve('kit_echo');
    expect(binding?.generation).toBe(installed.revision);
    expect(binding?.upstreamName).toBe('echo');
    const result = await binding!.client.callTool('echo', { hello: 'world' });
    expect(JSON.parse(textOf(result))).toEqual({ hello: 'world' });
    expect(catalog.get('kit')?.interfaces).toEqual([
      { kind: 'mcp', serverName: 'connector', toolPrefix: 'kit_', status: 'ready' },
    ]);
    expect(runtime.status()).toMatchObject([{ key: 'kit', state: 'ready', restarts: 0 }]);
    expect(runtime.events().map((event) => event.kind)).toEqual(['started']);
  });

  it('starts connectors in parallel and leaves one that fails to start out', async () => {
    const { store, registry, runtime } = await setup();
    await store.install(await writeRelease({ key: 'one', serverArgs: [] }));
    await store.install(await writeRelease({ key: 'two', serverArgs: ['--tools', '2'] }));
    await store.install(
      await writeRelease({ key: 'broken', serverArgs: [], command: '/nonexistent/tutti-mcp' }),
    );
    await runtime.reconcile();

    expect(registry.resolve('one_echo')).toBeDefined();
    expect(registry.resolve('two_tool_2')).toBeDefined();
    const broken = runtime.status().find((status) => status.key === 'broken');
    expect(broken?.state).toBe('failed');
    expect(broken?.lastError).toMatch(/tutti-mcp/);
    expect(runtime.events().some((e) => e.key === 'broken' && e.kind === 'start-failed')).toBe(
      true,
    );
  });

  it('starts a keyed connector only once its credential is set, and delivers it as env', async () => {
    const { store, registry, runtime, logger } = await setup();
    await store.install(
      await writeRelease({ key: 'keyed', serverArgs: [], apiKeyEnv: 'KEYED_API_KEY' }),
    );
    await runtime.reconcile();
    expect(registry.resolve('keyed_env_keys')).toBeUndefined();
    expect(runtime.status()).toMatchObject([
      { key: 'keyed', state: 'needs-auth', mcp: 'needs-auth', toolCount: 0 },
    ]);

    await store.setCredential('keyed', 'sk-test-secret-value');
    await runtime.reconcile();
    const binding = registry.resolve('keyed_env_keys');
    const names = JSON.parse(textOf(await binding!.client.callTool('env_keys', {})));
    expect(names).toContain('KEYED_API_KEY');

    await store.clearCredential('keyed');
    await runtime.reconcile();
    expect(registry.resolve('keyed_env_keys')).toBeUndefined();
    expect(logger.lines.join('\n')).not.toContain('sk-test-secret-value');
  });

  it('swaps an upgrade in with zero failed calls and closes the old upstream after', async () => {
    const { store, registry, runtime } = await setup();
    await store.install(await writeRelease({ key: 'up', serverArgs: [] }));
    await runtime.reconcile();
    const before = registry.resolve('up_echo')!;
    const oldPid = runtime.status()[0]?.pid;
    expect(oldPid).toBeGreaterThan(0);

    let stop = false;
    let calls = 0;
    const failures: unknown[] = [];
    const load = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const binding = registry.resolve('up_echo');
        try {
          if (!binding?.isCurrent()) throw new Error('no current binding');
          await binding.client.callTool('echo', { n: calls });
          calls++;
        } catch (error) {
          failures.push(error);
        }
      }
    });
    const slow = before.client.callTool('sleep', { ms: 300 });
    await store.install(
      await writeRelease({ key: 'up', version: '2.0.0', serverArgs: ['--tools', '1'] }),
    );
    await runtime.reconcile();
    stop = true;
    await Promise.all(load);

    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(0);
    expect(textOf(await slow)).toBe('slept');
    expect(before.isCurrent()).toBe(false);
    expect(registry.resolve('up_tool_1')).toBeDefined();
    expect(runtime.events().map((event) => event.kind)).toEqual(['started', 'upgraded']);
    expect(runtime.status()[0]?.pid).not.toBe(oldPid);
    expect(await groupGone(oldPid)).toBe(true);
  });

  it('keeps the old generation serving when the upgrade fails to start', async () => {
    const { store, registry, runtime } = await setup();
    await store.install(await writeRelease({ key: 'keep', serverArgs: [] }));
    await runtime.reconcile();
    const serving = registry.resolve('keep_echo')!;

    await store.install(
      await writeRelease({
        key: 'keep',
        version: '2.0.0',
        serverArgs: [],
        command: '/nonexistent/tutti-mcp',
      }),
    );
    await runtime.reconcile();

    expect(serving.isCurrent()).toBe(true);
    expect(registry.resolve('keep_echo')).toBe(serving);
    expect(runtime.status()[0]).toMatchObject({ state: 'ready' });
    expect(runtime.status()[0]?.lastError).toMatch(/tutti-mcp/);
  });

  it('fences, removes and stops the upstream on uninstall', async () => {
    const { store, registry, catalog, runtime } = await setup();
    await store.install(await writeRelease({ key: 'gone', serverArgs: [] }));
    await runtime.reconcile();
    const binding = registry.resolve('gone_echo')!;
    const pid = runtime.status()[0]?.pid;
    expect(pid).toBeGreaterThan(0);
    let changes = 0;
    registry.onListChanged(() => changes++);

    await store.uninstall('gone');
    await runtime.reconcile();

    expect(binding.isCurrent()).toBe(false);
    expect(registry.resolve('gone_echo')).toBeUndefined();
    expect(catalog.get('gone')).toBeUndefined();
    expect(changes).toBe(1);
    expect(await groupGone(pid)).toBe(true);
    expect(() => registry.commit('gone', binding.generation, binding.client, [])).toThrow(/fence/);
  });

  it('retires a crashed upstream, restarts it with backoff and records both events', async () => {
    const { store, registry, runtime } = await setup();
    await store.install(await writeRelease({ key: 'crashy', serverArgs: [] }));
    await runtime.reconcile();
    const first = registry.resolve('crashy_echo')!;

    await first.client.callTool('crash', {}).catch(() => undefined);
    const restarted = await waitFor(() => {
      const next = registry.resolve('crashy_echo');
      return next && next.generation > first.generation ? next : undefined;
    }, 'the restarted route');

    expect(first.isCurrent()).toBe(false);
    const kinds = runtime.events().map((event) => event.kind);
    expect(kinds).toEqual(['started', 'crashed', 'restarted']);
    expect(runtime.status()[0]).toMatchObject({ state: 'ready', restarts: 1 });
    expect(JSON.parse(textOf(await restarted.client.callTool('echo', { ok: 1 })))).toEqual({
      ok: 1,
    });
  });

  it('commits a new generation when the upstream says its tools changed', async () => {
    const { store, registry, runtime } = await setup();
    await store.install(await writeRelease({ key: 'grow', serverArgs: [] }));
    await runtime.reconcile();
    const before = registry.resolve('grow_echo')!;

    await before.client.callTool('add_tool', { name: 'fresh' });
    const fresh = await waitFor(() => registry.resolve('grow_fresh'), 'the new tool');

    expect(fresh.generation).toBeGreaterThan(before.generation);
    expect(runtime.events().at(-1)).toMatchObject({ key: 'grow', kind: 'tools-changed' });
  });

  it('publishes the CLI shim and skills with the route and removes the shim on uninstall', async () => {
    const { store, catalog, runtime, binDir } = await setup();
    await store.install(
      await writeRelease({
        key: 'tool',
        cli: 'console.log(process.argv.slice(2).join(" "));\n',
        skills: {
          'use-tool': '---\nname: use-tool\ndescription: How to use the tool.\n---\n# Use Tool\n',
        },
      }),
    );
    await runtime.reconcile();

    const shim = join(binDir, 'tutti-connector-tool');
    expect(await readFile(shim, 'utf8')).toContain('exec');
    expect(catalog.get('tool')).toEqual({
      key: 'tool',
      name: 'Connector tool',
      description: 'Test connector tool.',
      skills: [{ name: 'use-tool', title: 'Use Tool', description: 'How to use the tool.' }],
      interfaces: [{ kind: 'cli', command: 'tutti-connector-tool', status: 'ready' }],
    });
    expect(runtime.status()[0]?.skillRoot).toMatch(/skills$/);

    await store.uninstall('tool');
    await runtime.reconcile();
    await expect(access(shim)).rejects.toThrow();
  });

  it('hands sessions the skills of a connector with an interface that works, and only those', async () => {
    const { store, runtime } = await setup();
    const skills = (name: string) => ({
      [name]: `---\nname: ${name}\ndescription: How to use ${name}.\n---\n# ${name}\n`,
    });
    const cli = 'console.log("ok");\n';
    const broken = { serverArgs: [], command: '/nonexistent/tutti-mcp' };
    await store.install(await writeRelease({ key: 'works', serverArgs: [], skills: skills('a') }));
    await store.install(await writeRelease({ key: 'dead', ...broken, skills: skills('b') }));
    await store.install(await writeRelease({ key: 'half', ...broken, cli, skills: skills('c') }));
    await runtime.reconcile();

    const states = Object.fromEntries(runtime.status().map((s) => [s.key, [s.state, s.cli]]));
    expect(states).toEqual({
      dead: ['failed', undefined],
      half: ['failed', 'ready'],
      works: ['ready', undefined],
    });
    const roots = runtime.skillRoots();
    expect(roots).toEqual(
      runtime
        .status()
        .filter((s) => s.key !== 'dead')
        .map((s) => s.skillRoot),
    );
    expect(roots).toHaveLength(2);
  });
});
