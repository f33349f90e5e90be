/**
 * Loads plugin candidates one at a time: import, validate, apply. A plugin that fails at
 * any step is reported with a TuttiError naming it and skipped (its taps go inert, its
 * providers are not registered); it never stops the others or the daemon.
 */
import { pathToFileURL } from 'node:url';
import type { InstalledAgentsFeed } from '../contracts/installed-agents.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { providerHooks } from '../session/hooks.js';
import type { AgentProvider } from '../session/provider-contract.js';
import type { TapGuard } from '../session/tap-guard.js';
import type { DiscoverOptions, PluginCandidate, PluginSource } from './discover-plugins.js';
import { discoverPlugins } from './discover-plugins.js';
import {
  type PluginHost,
  type PluginLogger,
  tuttiPluginSchema,
  type TuttiPlugin,
} from './plugin-contract.js';

/** The host plugins are applied to; `AgentSessionHost` is one. */
export interface LoaderHost extends Omit<PluginHost, 'removeProvider' | 'hasProvider'> {
  /** Removes a registered provider; false when there was none of that name. */
  removeProvider(name: string): boolean;
  listProviders(): readonly { name: string }[];
  /** The guard of the host's hook table: attributes a plugin's taps while it applies. */
  readonly taps: Pick<TapGuard, 'applyAs' | 'disable'>;
}

/** What happened to one plugin. */
export interface PluginLoadResult {
  readonly source: PluginSource | 'inline';
  readonly origin: string;
  readonly name?: string;
  readonly version?: string;
  readonly status: 'applied' | 'failed';
  /** Providers the plugin registered. */
  readonly providers: readonly string[];
  readonly error?: TuttiError;
}

/** Discovers and loads every plugin; resolves with one result per candidate, in order. */
export async function discoverAndLoadPlugins(
  host: LoaderHost,
  options: DiscoverOptions,
): Promise<PluginLoadResult[]> {
  return loadPlugins(host, await discoverPlugins(options), {
    ...(options.home === undefined ? {} : { home: options.home }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.installedAgents === undefined ? {} : { installedAgents: options.installedAgents }),
  });
}

/** What every plugin is handed besides the hooks. */
export interface PluginContext {
  readonly home?: string;
  readonly logger?: PluginLogger;
  readonly installedAgents?: InstalledAgentsFeed;
}

/** Loads candidates in order. */
export async function loadPlugins(
  host: LoaderHost,
  candidates: readonly PluginCandidate[],
  context: PluginContext = {},
): Promise<PluginLoadResult[]> {
  const results: PluginLoadResult[] = [];
  const loaded = new Map<string, string>();
  for (const candidate of candidates) {
    const base = { source: candidate.source, origin: candidate.origin };
    if (!candidate.entry) {
      results.push(
        failed(base, 'TUTTI_ERR_PLUGIN_LOAD_FAILED', { reason: candidate.problem ?? 'no entry' }),
      );
      continue;
    }
    let exported: unknown;
    try {
      const module = (await import(pathToFileURL(candidate.entry).href)) as Record<string, unknown>;
      exported = module.default ?? module.plugin;
    } catch (error) {
      results.push(
        failed(base, 'TUTTI_ERR_PLUGIN_LOAD_FAILED', { reason: messageOf(error) }, error),
      );
      continue;
    }
    results.push(await applyPlugin(host, exported, base, loaded, context));
  }
  return results;
}

/**
 * Validates and applies one plugin object (e.g. one built into the daemon). `loaded` maps
 * plugin names to origins already applied, to refuse duplicates.
 */
export async function applyPlugin(
  host: LoaderHost,
  exported: unknown,
  base: { source: PluginSource | 'inline'; origin: string },
  loaded: Map<string, string> = new Map(),
  context: PluginContext = {},
): Promise<PluginLoadResult> {
  const parsed = tuttiPluginSchema.safeParse(exported);
  if (!parsed.success) {
    const reason = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || 'export'}: ${issue.message}`)
      .join('; ');
    return failed(base, 'TUTTI_ERR_PLUGIN_INVALID', { reason });
  }
  const plugin = exported as TuttiPlugin;
  const named = { ...base, name: plugin.name, version: plugin.version };
  const first = loaded.get(plugin.name);
  if (first !== undefined) {
    return failed(named, 'TUTTI_ERR_PLUGIN_DUPLICATE', { plugin: plugin.name, first });
  }
  const staged: AgentProvider[] = [];
  const owned = new Set<string>();
  let applied = false;
  const scoped: PluginHost = Object.freeze({
    hooks: host.hooks,
    ...context,
    registerProvider: <P>(
      provider: AgentProvider<string, P>,
      options?: { readonly replace?: boolean },
    ) => {
      if (!applied) {
        staged.push(provider as AgentProvider);
        return providerHooks(host.hooks, provider);
      }
      const replace = options?.replace === true && owned.has(provider.name);
      const hooks = host.registerProvider(provider, { replace });
      owned.add(provider.name);
      return hooks;
    },
    hasProvider: (name: string) =>
      staged.some((provider) => provider.name === name) ||
      host.listProviders().some((provider) => provider.name === name),
    removeProvider: (name: string) => {
      if (!owned.has(name)) return false;
      owned.delete(name);
      return host.removeProvider(name);
    },
  });
  try {
    await host.taps.applyAs(plugin.name, () => plugin.apply(scoped));
    const taken = new Set(host.listProviders().map((provider) => provider.name));
    for (const provider of staged) {
      if (taken.has(provider.name)) {
        throw new TuttiError('TUTTI_ERR_PLUGIN_DUPLICATE_PROVIDER', { provider: provider.name });
      }
      taken.add(provider.name);
    }
    for (const provider of staged) {
      host.registerProvider(provider);
      owned.add(provider.name);
    }
    applied = true;
  } catch (error) {
    host.taps.disable(plugin.name);
    return failed(
      named,
      'TUTTI_ERR_PLUGIN_APPLY_FAILED',
      { plugin: plugin.name, reason: messageOf(error) },
      error,
    );
  }
  loaded.set(plugin.name, base.origin);
  return { ...named, status: 'applied', providers: staged.map((provider) => provider.name) };
}

function failed(
  base: Omit<PluginLoadResult, 'status' | 'providers' | 'error'>,
  code:
    | 'TUTTI_ERR_PLUGIN_LOAD_FAILED'
    | 'TUTTI_ERR_PLUGIN_INVALID'
    | 'TUTTI_ERR_PLUGIN_DUPLICATE'
    | 'TUTTI_ERR_PLUGIN_APPLY_FAILED',
  details: Record<string, string>,
  cause?: unknown,
): PluginLoadResult {
  const error =
    code === 'TUTTI_ERR_PLUGIN_APPLY_FAILED' && isTuttiError(cause, 'TUTTI_ERR_PLUGIN_HOOK_FAILED')
      ? cause
      : new TuttiError(code, { origin: base.origin, ...details }, { cause });
  return { ...base, status: 'failed', providers: [], error };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
