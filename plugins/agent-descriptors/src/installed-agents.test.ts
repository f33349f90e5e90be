/**
 * Installed agents as providers, through the plugin loader on a real session host: a fake
 * installed-agents feed drives installs and removals; what each provider would launch and
 * which permission modes it keeps are read from the registered provider.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentProvider,
  AgentSessionHost,
  type InstalledAgent,
  type InstalledAgentsChange,
  type InstalledAgentsFeed,
  isTuttiError,
} from '@tutti/core';
import { applyPlugin, createTokenService, type LoaderHost } from '@tutti/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import plugin from './index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A feed whose changes the test sends. */
function fakeFeed(agents: InstalledAgent[] = []) {
  const listeners = new Set<(change: InstalledAgentsChange) => void | Promise<void>>();
  const feed: InstalledAgentsFeed = {
    list: async () => agents,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const send = async (change: InstalledAgentsChange) => {
    for (const listener of listeners) await listener(change);
  };
  return { feed, send };
}

/** An installed agent `id` of `home`, run by node with `args` and `env`. */
function agent(home: string, id: string, run?: Partial<InstalledAgent['run']>): InstalledAgent {
  return {
    id,
    name: `Agent ${id}`,
    version: '1.2.3',
    source: 'registry',
    dir: join(home, 'agents', id),
    installedAt: new Date(0).toISOString(),
    run: { command: process.execPath, args: ['agent.mjs'], env: {}, ...run },
  };
}

/** The plugin applied on a real host with `feed`, and the providers it registered. */
async function applied(
  feed: InstalledAgentsFeed,
  userDescriptors: Record<string, unknown> = {},
  otherProviders: readonly string[] = [],
) {
  const root = await mkdtemp(join(tmpdir(), 'tutti-installed-agents-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  await mkdir(join(home, 'agents'), { recursive: true });
  for (const [name, json] of Object.entries(userDescriptors)) {
    await writeFile(join(home, 'agents', name), JSON.stringify(json));
  }
  const host = new AgentSessionHost({
    connector: {
      endpointUrl: () => 'http://127.0.0.1:9/mcp',
      shimBinDir: () => join(root, 'bin'),
      skillRoots: () => [],
    },
    tokens: createTokenService(),
    sessionsDir: join(root, 'sessions'),
  });
  cleanups.push(() => host.close());
  const providers = new Map<string, AgentProvider>();
  const logs: { level: string; message: string }[] = [];
  const loader: LoaderHost = {
    hooks: host.hooks,
    taps: host.taps,
    listProviders: () => host.listProviders(),
    registerProvider(provider, options) {
      const hooks = host.registerProvider(provider, options);
      providers.set(provider.name, provider as AgentProvider);
      return hooks;
    },
    removeProvider(name) {
      providers.delete(name);
      return host.removeProvider(name);
    },
  };
  for (const other of otherProviders) {
    host.registerProvider({
      name: other,
      flags: { httpMcp: false, listChanged: false },
      project: () => ({}),
      bindingsIn: () => [],
      driver: () => ({
        open: async () => {
          throw new Error('never opened');
        },
      }),
    });
  }
  const result = await applyPlugin(
    loader,
    plugin,
    { source: 'inline', origin: 'test' },
    new Map(),
    {
      home,
      logger: {
        info: (_fields, message) => logs.push({ level: 'info', message }),
        warn: (_fields, message) => logs.push({ level: 'warn', message }),
      },
      installedAgents: feed,
    },
  );
  expect(result.error).toBeUndefined();
  return { home, providers, logs };
}

describe('installed agents as providers', () => {
  it('makes an installed agent a provider of its id with its entry command, args and env, and generic ACP defaults', async () => {
    const { feed, send } = fakeFeed();
    const { home, providers } = await applied(feed);
    await send({
      kind: 'installed',
      agent: agent(home, 'some-agent', {
        args: ['agent.mjs', '--acp'],
        env: { AGENT_MODE: 'acp' },
      }),
    });
    const provider = providers.get('some-agent');
    expect(provider?.launch).toEqual({
      command: process.execPath,
      args: ['agent.mjs', '--acp'],
      env: { AGENT_MODE: 'acp' },
    });
    // No descriptor makes it ask before its tools run: sessions take "agent" only.
    expect(provider?.permissions).toBeUndefined();
    expect(provider?.flags).toEqual({ httpMcp: true, listChanged: false });
  });

  it('registers the agents installed before the daemon started', async () => {
    const { feed } = fakeFeed([agent('/tutti-home', 'early-agent')]);
    const { providers } = await applied(feed);
    expect(providers.get('early-agent')?.launch?.command).toBe(process.execPath);
  });

  it('gives an installed registry agent the shipped descriptor whose registryIds name it, under the agent id', async () => {
    const { feed, send } = fakeFeed();
    const { home, providers } = await applied(feed);
    const shippedBefore = providers.get('claude-agent-acp');
    await send({
      kind: 'installed',
      agent: agent(home, 'claude-acp', { args: [], env: { FROM_ENTRY: '1' } }),
    });
    const provider = providers.get('claude-acp');
    expect(provider?.launch).toEqual({
      command: process.execPath,
      args: [],
      env: { FROM_ENTRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
    });
    expect(provider?.permissions?.modes).toEqual(['ask', 'allow-connector']);
    // The shipped provider of its own id is left as it was.
    expect(providers.get('claude-agent-acp')).toBe(shippedBefore);
  });

  it('removes the provider of a removed agent, and gives its name back to the user descriptor of that id', async () => {
    const { feed, send } = fakeFeed();
    const mine = { id: 'my-agent', name: 'Mine', command: process.execPath, args: ['mine.mjs'] };
    const { home, providers } = await applied(feed, { 'my-agent.json': mine });
    expect(providers.get('my-agent')?.launch?.args).toEqual(['mine.mjs']);

    await send({ kind: 'installed', agent: agent(home, 'my-agent', { args: ['installed.mjs'] }) });
    expect(providers.get('my-agent')?.launch?.args).toEqual(['installed.mjs']);
    await send({ kind: 'installed', agent: agent(home, 'lone-agent') });
    expect(providers.has('lone-agent')).toBe(true);

    await send({ kind: 'removed', id: 'my-agent' });
    expect(providers.get('my-agent')?.launch?.args).toEqual(['mine.mjs']);
    await send({ kind: 'removed', id: 'lone-agent' });
    expect(providers.has('lone-agent')).toBe(false);
  });

  it('keeps a user descriptor without a command waiting, then extends the agent it names with it', async () => {
    const { feed, send } = fakeFeed();
    const extending = {
      id: 'my-extension',
      name: 'Mine',
      registryIds: ['some-agent'],
      args: ['--extra'],
      env: { FROM_DESCRIPTOR: '1', SHARED: 'descriptor' },
    };
    const { home, providers, logs } = await applied(feed, { 'mine.json': extending });
    expect(providers.has('my-extension')).toBe(false);
    expect(logs).toContainEqual({
      level: 'info',
      message: expect.stringContaining('waits for an installed agent'),
    });
    expect(logs.filter((log) => log.level === 'warn' && log.message.includes('mine.json'))).toEqual(
      [],
    );

    await send({
      kind: 'installed',
      agent: agent(home, 'some-agent', { args: ['--acp'], env: { SHARED: 'entry', E: '1' } }),
    });
    expect(providers.get('some-agent')?.launch).toEqual({
      command: process.execPath,
      args: ['--acp', '--extra'],
      env: { SHARED: 'descriptor', E: '1', FROM_DESCRIPTOR: '1' },
    });
  });

  it('re-registers an installed agent when the user descriptor that extends it is written', async () => {
    const { feed, send } = fakeFeed();
    const { home, providers } = await applied(feed);
    await send({ kind: 'installed', agent: agent(home, 'some-agent', { env: { E: '1' } }) });
    const before = providers.get('some-agent');
    await writeFile(
      join(home, 'agents', 'later.json'),
      JSON.stringify({ id: 'some-agent', name: 'Later', env: { LATER: '1' } }),
    );
    await expect
      .poll(() => providers.get('some-agent')?.launch?.env)
      .toEqual({ E: '1', LATER: '1' });
    expect(providers.get('some-agent')).not.toBe(before);
  });

  it('refuses an extension whose descriptor names another agent, naming the file and the field, and registers nothing', async () => {
    const { feed, send } = fakeFeed();
    const { home, providers } = await applied(feed);
    const dir = join(home, 'agents', 'ext-agent', 'extension', '1.0.0');
    await mkdir(dir, { recursive: true });
    const descriptor = join(dir, 'descriptor.json');
    await writeFile(descriptor, JSON.stringify({ id: 'other-agent', name: 'Other' }));
    const installed: InstalledAgent = {
      ...agent(home, 'ext-agent'),
      source: 'extension',
      extension: { version: '1.0.0', dir, descriptor, files: [] },
    };
    const refusal = await send({ kind: 'installed', agent: installed }).catch((error) => error);
    expect(isTuttiError(refusal, 'TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR')).toBe(true);
    expect(refusal.details).toMatchObject({ file: descriptor, field: 'id' });
    expect(providers.has('ext-agent')).toBe(false);
    expect(providers.has('other-agent')).toBe(false);
  });

  it('runs an extension agent with the descriptor of its extension', async () => {
    const { feed, send } = fakeFeed();
    const { home, providers } = await applied(feed);
    const dir = join(home, 'agents', 'ext-agent', 'extension', '1.0.0');
    await mkdir(dir, { recursive: true });
    const descriptor = join(dir, 'descriptor.json');
    await writeFile(
      descriptor,
      JSON.stringify({
        id: 'ext-agent',
        name: 'Ext',
        env: { FROM_EXTENSION: '1' },
        listChanged: true,
      }),
    );
    await send({
      kind: 'installed',
      agent: {
        ...agent(home, 'ext-agent'),
        source: 'extension',
        extension: { version: '1.0.0', dir, descriptor, files: [] },
      },
    });
    expect(providers.get('ext-agent')?.launch?.env).toEqual({ FROM_EXTENSION: '1' });
    expect(providers.get('ext-agent')?.flags.listChanged).toBe(true);
  });
  it('leaves another plugin its provider when an installed agent has the same name, and applies whole', async () => {
    const { feed, send } = fakeFeed([agent('/tutti-home', 'codex')]);
    const { home, providers, logs } = await applied(feed, {}, ['codex']);
    // The agent-descriptors plugin applied (every shipped agent is there) and warned.
    expect(providers.has('opencode')).toBe(true);
    expect(providers.has('codex')).toBe(false);
    expect(logs).toContainEqual({
      level: 'warn',
      message: expect.stringContaining('"codex" is already registered'),
    });
    // An install of that name is refused (and undone by the installer).
    const refusal = await send({ kind: 'installed', agent: agent(home, 'codex') }).catch(
      (error) => error,
    );
    expect(isTuttiError(refusal, 'TUTTI_ERR_PLUGIN_DUPLICATE_PROVIDER')).toBe(true);
  });

  it('refuses an extension whose descriptor names a program of its own, or that has no registry runtime', async () => {
    const { feed, send } = fakeFeed();
    const { home } = await applied(feed);
    const dir = join(home, 'agents', 'ext-agent', 'extension', '1.0.0');
    await mkdir(dir, { recursive: true });
    const descriptor = join(dir, 'descriptor.json');
    const extension = { version: '1.0.0', dir, descriptor, files: [] };
    await writeFile(descriptor, JSON.stringify({ id: 'ext-agent', name: 'Ext', command: 'sh' }));
    const named = await send({
      kind: 'installed',
      agent: { ...agent(home, 'ext-agent'), source: 'extension', extension },
    }).catch((error) => error);
    expect(named.details).toMatchObject({ file: descriptor, field: 'command' });

    await writeFile(descriptor, JSON.stringify({ id: 'ext-agent', name: 'Ext' }));
    const { run: _run, ...runless } = agent(home, 'ext-agent');
    const bare = await send({
      kind: 'installed',
      agent: { ...runless, source: 'extension', extension },
    }).catch((error) => error);
    expect(isTuttiError(bare, 'TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR')).toBe(true);
    expect(bare.details.field).toBe('command');
  });

  it("seeds the session home with the extension package's declared files, and only those", async () => {
    const { feed, send } = fakeFeed();
    const { home, providers } = await applied(feed);
    const dir = join(home, 'agents', 'ext-agent', 'extension', '1.0.0');
    await mkdir(join(dir, 'home'), { recursive: true });
    await writeFile(join(dir, 'home', 'profile.yaml'), 'profile: reviewer\n');
    await writeFile(join(dir, 'home', 'undeclared.yaml'), 'x: 1\n');
    const descriptor = join(dir, 'descriptor.json');
    const withSeed = (file: string) =>
      JSON.stringify({
        id: 'ext-agent',
        name: 'Ext',
        home: {
          env: 'EXT_HOME',
          mode: 'adds',
          user: ['~/.ext'],
          seed: { 'profile.yaml': { file }, 'inline.txt': 'inline' },
        },
      });
    const installed = {
      ...agent(home, 'ext-agent'),
      source: 'extension' as const,
      extension: { version: '1.0.0', dir, descriptor, files: ['home/profile.yaml'] },
    };
    await writeFile(descriptor, withSeed('home/profile.yaml'));
    await send({ kind: 'installed', agent: installed });
    expect(providers.has('ext-agent')).toBe(true);

    for (const file of ['home/undeclared.yaml', '../../../../etc/passwd']) {
      await writeFile(descriptor, withSeed(file));
      const refusal = await send({ kind: 'installed', agent: installed }).catch((error) => error);
      expect(refusal.details, file).toMatchObject({ field: 'home.seed.profile.yaml' });
    }
  });

  it('refuses a user descriptor that seeds from a package file', async () => {
    const { feed } = fakeFeed();
    const mine = {
      id: 'my-agent',
      name: 'Mine',
      command: process.execPath,
      home: {
        env: 'MY_HOME',
        mode: 'adds',
        user: ['~/.mine'],
        seed: { 'a.txt': { file: 'a.txt' } },
      },
    };
    const { providers, logs } = await applied(feed, { 'my-agent.json': mine });
    expect(providers.has('my-agent')).toBe(false);
    expect(logs).toContainEqual({
      level: 'warn',
      message: expect.stringContaining('home.seed.a.txt: only a signed extension'),
    });
  });
});
