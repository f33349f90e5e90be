/**
 * The host's registered providers: registering one checks what it declares (its flags
 * against the schema, the methods the host calls, a probe only for a kind with a
 * handshake) and, once per name, taps the standard refresh strategies on its chain and
 * guards the taps of its projection hooks.
 */
import { type ProviderCapabilities, providerFlagsSchema } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { type ProviderHooks, providerHooks, type SessionHooks } from './hooks.js';
import { supports } from './operations.js';
import { guardProjections } from './project-session.js';
import type { AgentProvider } from './provider-contract.js';
import { refreshStrategiesOf, tapStandardRefreshStrategies } from './refresh-strategies.js';
import type { SessionOperation } from './session-types.js';
import type { PermissionMode } from './turn-types.js';

export class ProviderTable {
  readonly #providers = new Map<string, AgentProvider>();
  readonly #hooks: SessionHooks;
  /** Names whose chains and projection hooks the table has tapped. */
  readonly #tapped = new Set<string>();

  constructor(hooks: SessionHooks) {
    this.#hooks = hooks;
  }

  /**
   * Adds a provider and hands back its hooks, typed with its params; a second provider of
   * the same name is refused unless `replace` is set.
   */
  register<P>(
    provider: AgentProvider<string, P>,
    options: { readonly replace?: boolean } = {},
  ): ProviderHooks<P> {
    const { name } = provider;
    if (this.#providers.has(name) && !options.replace) {
      throw new TuttiError('TUTTI_ERR_PLUGIN_DUPLICATE_PROVIDER', { provider: name });
    }
    const invalid = (reason: string) =>
      new TuttiError('TUTTI_ERR_PLUGIN_INVALID_PROVIDER', { provider: name, reason });
    const parsed = providerFlagsSchema.safeParse(provider.flags);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || 'flags'} ${issue.message}`,
      );
      throw invalid(`flags: ${issues.join('; ')}`);
    }
    const missing = (['project', 'bindingsIn', 'driver'] as const).filter(
      (method) => typeof provider[method] !== 'function',
    );
    if (missing.length > 0) throw invalid(`it has no ${missing.join(', ')} method`);
    this.#providers.set(
      name,
      Object.freeze({ ...provider, flags: Object.freeze(parsed.data) }) as AgentProvider,
    );
    this.tapChain(name);
    return providerHooks(this.#hooks, provider);
  }

  /** Taps the standard refresh strategies and the projection guards of `name` (once). */
  tapChain(name: string): void {
    if (this.#tapped.has(name)) return;
    this.#tapped.add(name);
    tapStandardRefreshStrategies(this.#hooks, name);
    guardProjections(this.#hooks, name, () => this.#providers.get(name));
  }

  /** Removes the provider of that name (its hooks stay tapped for a later one); false when none. */
  remove(name: string): boolean {
    return this.#providers.delete(name);
  }

  /** The provider of that name, if registered. */
  get(name: string): AgentProvider | undefined {
    return this.#providers.get(name);
  }

  /** The provider of that name; TUTTI_ERR_SESSION_UNKNOWN_PROVIDER naming the known ones. */
  require(name: string): AgentProvider {
    const provider = this.#providers.get(name);
    if (!provider) {
      const known = [...this.#providers.keys()].join(', ') || '(none)';
      throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN_PROVIDER', { provider: name, known });
    }
    return provider;
  }

  /**
   * The provider of that name for a daemon-driven session opened through `operation` under
   * `permissions`; refused when it lacks the operation or cannot keep the permission mode.
   */
  forSession(
    name: string,
    operation: SessionOperation,
    permissions: PermissionMode = 'ask',
  ): AgentProvider {
    const provider = this.require(name);
    if (!supports(provider, operation)) {
      throw new TuttiError('TUTTI_ERR_SESSION_UNSUPPORTED', { provider: name, operation });
    }
    if (permissions !== 'agent' && !provider.permissions?.modes.includes(permissions)) {
      throw new TuttiError('TUTTI_ERR_SESSION_PERMISSIONS_UNSUPPORTED', {
        provider: name,
        mode: permissions,
      });
    }
    return provider;
  }

  /** Names and capabilities of the registered providers, derived from what each implements. */
  list(): { name: string; capabilities: ProviderCapabilities }[] {
    return [...this.#providers.values()].map((provider) => ({
      name: provider.name,
      capabilities: {
        ...provider.flags,
        handshake: Boolean(provider.probeOf),
        load: supports(provider, 'load'),
        resume: supports(provider, 'resume'),
        refresh: refreshStrategiesOf(this.#hooks, provider.name),
        permissions: [...(provider.permissions?.modes ?? []), 'agent'],
      },
    }));
  }
}
