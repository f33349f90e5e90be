/**
 * The plugin contract: `{ name, version, apply(host) }`, validated with zod before `apply`
 * runs. A provider plugin registers its providers on the host in `apply`; any plugin may
 * tap a provider's hooks. What a provider can do is said by the provider itself, never by
 * its plugin.
 */
import { z } from 'zod';
import type { InstalledAgentsFeed } from '../contracts/installed-agents.js';
import type { ProviderHooks, SessionHooks } from '../session/hooks.js';
import type { AgentProvider } from '../session/provider-contract.js';

/** The log a plugin writes to (pino-compatible). */
export interface PluginLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** What a plugin's `apply` receives: the hook table and provider registration. */
export interface PluginHost {
  readonly hooks: SessionHooks;
  /** The daemon's home (absolute), when the plugin runs in a daemon. */
  readonly home?: string;
  /** The daemon's log (never give it a secret). */
  readonly logger?: PluginLogger;
  /** The agents installed in the daemon's home (`POST /v1/agents/install`), when it has one. */
  readonly installedAgents?: InstalledAgentsFeed;
  /**
   * Adds a provider and hands back its hooks, typed with its params; refused when the name
   * is taken, unless `replace` is set and the name is one this plugin registered (the next
   * session uses the new one). A plugin may call it after `apply` too (e.g. for a
   * descriptor added while the daemon runs).
   */
  registerProvider<P>(
    provider: AgentProvider<string, P>,
    options?: { readonly replace?: boolean },
  ): ProviderHooks<P>;
  /**
   * Removes a provider this plugin registered (an installed agent that was removed): new
   * sessions of that name are refused, running ones keep going. False when it had none.
   */
  removeProvider(name: string): boolean;
  /**
   * Whether a provider of that name is registered, by any plugin (or staged by this one):
   * a name another plugin holds cannot be registered, and asking first keeps one plugin's
   * clash (an installed agent named like another plugin's provider) from failing it whole.
   */
  hasProvider(name: string): boolean;
}

/** A tutti plugin. */
export interface TuttiPlugin {
  /** Unique name, e.g. the package name `@tutti/provider-acp`. */
  readonly name: string;
  /** Semver of the plugin. */
  readonly version: string;
  /** Taps hooks and registers providers. May be async. */
  apply(host: PluginHost): void | Promise<void>;
}

/** Zod schema of {@link TuttiPlugin}, checked before `apply`. */
export const tuttiPluginSchema = z.looseObject({
  name: z
    .string()
    .min(1)
    .max(214)
    .regex(/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i, 'use a package-style name'),
  version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][\w.+-]*)?$/, 'use a semver version'),
  apply: z.custom<TuttiPlugin['apply']>((value) => typeof value === 'function', {
    message: 'apply must be a function',
  }),
});

/**
 * Typed identity helper for a plugin module's default export.
 * @example export default definePlugin({ name: 'audit', version: '1.0.0', apply(host) {} });
 */
export function definePlugin<T extends TuttiPlugin>(plugin: T): T {
  return plugin;
}
