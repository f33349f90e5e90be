import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTokenService } from '../auth/index.js';
import { AgentSessionHost } from '../session/host.js';
import { createFakeConnector } from '@tutti/test-kit/core/fake-connector';
import type { PluginCandidate } from './discover-plugins.js';
import { applyPlugin, loadPlugins } from './load-plugins.js';

const dir = mkdtempSync(join(tmpdir(), 'tutti-plugins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hosts: AgentSessionHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

let files = 0;
/** Writes a plugin module and returns its candidate. */
function pluginFile(source: string): PluginCandidate {
  const path = join(dir, `plugin-${++files}.mjs`);
  writeFileSync(path, source);
  return { source: 'drop-in', origin: path, entry: path };
}

/** A plugin module registering provider `name` that records what it sends. */
function providerPlugin(plugin: string, provider: string): string {
  return `
export default {
  name: '${plugin}',
  version: '1.0.0',
  apply(host) {
    host.registerProvider({
      name: '${provider}',
      flags: { httpMcp: true, listChanged: false },
      project: (runtime) => ({ mcpServers: runtime.mcpServers }),
      bindingsIn: (params) => params.mcpServers,
      driver: () => ({
        async open({ params }) {
          (globalThis.__tuttiSent ??= []).push(params);
          return { providerSessionId: 'p-1' };
        },
      }),
    });
  },
};`;
}

function newHost() {
  const host = new AgentSessionHost({
    connector: createFakeConnector(),
    tokens: createTokenService(),
  });
  hosts.push(host);
  return host;
}

const sent = () => (globalThis as { __tuttiSent?: Record<string, unknown>[] }).__tuttiSent ?? [];

describe('loadPlugins', () => {
  it('applies good plugins and reports each broken one without stopping', async () => {
    const host = newHost();
    const results = await loadPlugins(host, [
      pluginFile(providerPlugin('good', 'good-agent')),
      pluginFile(`throw new Error('boom at import');`),
      pluginFile(`export default { name: 'half' };`),
      pluginFile(`export default { name: 'Bad Name!', version: '1.0.0', apply() {} };`),
      pluginFile(providerPlugin('good', 'other-agent')),
      {
        source: 'drop-in',
        origin: join(dir, 'empty-folder'),
        problem: 'no package.json, index.mjs or index.js',
      },
    ]);
    expect(results.map((result) => [result.status, result.error?.code])).toEqual([
      ['applied', undefined],
      ['failed', 'TUTTI_ERR_PLUGIN_LOAD_FAILED'],
      ['failed', 'TUTTI_ERR_PLUGIN_INVALID'],
      ['failed', 'TUTTI_ERR_PLUGIN_INVALID'],
      ['failed', 'TUTTI_ERR_PLUGIN_DUPLICATE'],
      ['failed', 'TUTTI_ERR_PLUGIN_LOAD_FAILED'],
    ]);
    expect(results[0]).toMatchObject({ name: 'good', version: '1.0.0', providers: ['good-agent'] });
    expect(results[1]!.error!.message).toContain('boom at import');
    expect(results[2]!.error!.message).toMatch(/version|apply/);
    expect(results[3]!.error!.message).toContain('package-style name');
    expect(host.listProviders().map((provider) => provider.name)).toEqual(['good-agent']);
  });

  it('skips a plugin whose apply throws: its taps go inert and its providers are dropped', async () => {
    const host = newHost();
    const results = await loadPlugins(host, [
      pluginFile(providerPlugin('base', 'base-agent')),
      pluginFile(`
export default {
  name: 'breaks-late',
  version: '0.1.0',
  apply(host) {
    host.hooks.sessionNew.for('base-agent').tapPromise('breaks-late', async (params) => ({ ...params, tainted: true }));
    host.registerProvider({ name: 'late-agent', flags: { httpMcp: false, listChanged: false }, project: () => ({}), bindingsIn: () => [], driver: () => ({ open: async () => { throw new Error('never'); } }) });
    throw new Error('config missing');
  },
};`),
    ]);
    expect(results[1]).toMatchObject({ name: 'breaks-late', status: 'failed', providers: [] });
    expect(results[1]!.error!.code).toBe('TUTTI_ERR_PLUGIN_APPLY_FAILED');
    expect(results[1]!.error!.message).toContain(
      'Plugin "breaks-late" failed in apply: config missing',
    );
    expect(host.listProviders().map((provider) => provider.name)).toEqual(['base-agent']);
    const before = sent().length;
    await host.createSession({
      provider: 'base-agent',
      workspaceId: 'ws',
      cwd: '/w',
      permissions: 'agent',
    });
    expect(sent()[before]).not.toHaveProperty('tainted');
  });

  it('refuses a plugin that registers a provider name already taken', async () => {
    const host = newHost();
    const results = await loadPlugins(host, [
      pluginFile(providerPlugin('first', 'shared-agent')),
      pluginFile(providerPlugin('second', 'shared-agent')),
    ]);
    expect(results[1]!.status).toBe('failed');
    expect(results[1]!.error!.message).toContain('Provider "shared-agent" is already registered');
  });

  it('wraps an error thrown in a hook tap in a TuttiError naming the plugin and the hook', async () => {
    const host = newHost();
    await loadPlugins(host, [
      pluginFile(providerPlugin('provider-plugin', 'tapped-agent')),
      pluginFile(`
export default {
  name: 'throws-in-tap',
  version: '2.0.0',
  apply(host) {
    host.hooks.sessionNew.for('tapped-agent').tapPromise('anything', async () => { throw new Error('tap exploded'); });
  },
};`),
    ]);
    const error = await host
      .createSession({
        provider: 'tapped-agent',
        workspaceId: 'ws',
        cwd: '/w',
        permissions: 'agent',
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'TUTTI_ERR_PLUGIN_HOOK_FAILED',
      message:
        'Plugin "throws-in-tap" failed in hook "sessionNew.tapped-agent": tap exploded. Fix or remove the plugin.',
    });
    expect(host.listSessions()).toEqual([]);
  });

  it('fails the session loudly when a plugin prepare tap drops mcpServers', async () => {
    const host = newHost();
    await loadPlugins(host, [
      pluginFile(providerPlugin('carrier', 'carrier-agent')),
      pluginFile(`
export default {
  name: 'drops-servers',
  version: '1.0.0',
  apply(host) {
    host.hooks.prepare.tapPromise('DropsServers', async (runtime) => ({ ...runtime, mcpServers: [] }));
  },
};`),
    ]);
    const before = sent().length;
    await expect(
      host.createSession({
        provider: 'carrier-agent',
        workspaceId: 'ws',
        cwd: '/w',
        permissions: 'agent',
      }),
    ).rejects.toMatchObject({ code: 'TUTTI_ERR_SESSION_BINDING_DROPPED' });
    expect(sent()).toHaveLength(before);
  });

  it('refuses a provider whose flags are not valid, naming the flag', async () => {
    const host = newHost();
    const [result] = await loadPlugins(host, [
      pluginFile(`
export default {
  name: 'odd-flags',
  version: '1.0.0',
  apply(host) {
    host.registerProvider({ name: 'odd-agent', flags: { httpMcp: 'yes' }, project: () => ({}), bindingsIn: () => [], driver: () => ({ open: async () => ({ providerSessionId: 'x' }) }) });
  },
};`),
    ]);
    expect(result).toMatchObject({ status: 'failed', providers: [] });
    expect(result!.error!.message).toContain('Provider "odd-agent" is not valid: flags: httpMcp');
    expect(host.listProviders()).toEqual([]);
  });

  it('applies an inline plugin object the same way', async () => {
    const host = newHost();
    const result = await applyPlugin(
      host,
      { name: 'inline', version: '1.0.0', apply: () => {} },
      { source: 'inline', origin: 'daemon' },
    );
    expect(result).toMatchObject({ status: 'applied', name: 'inline', providers: [] });
  });
});
