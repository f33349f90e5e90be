/**
 * The host's registered providers: registering one checks what it declares (its flags
 * against the schema; a handshake only with the probe that says what it means) and taps
 * the standard refresh strategies and the projection guards for it.
 */
import { type ProviderCapabilities, providerFlagsSchema } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import type { SessionHooks } from './hooks.js';
import { guardProjections } from './project-session.js';
import type { AgentProvider } from './provider-contract.js';
import { refreshStrategiesOf, tapStandardRefreshStrategies } from './refresh-strategies.js';
import type { SessionOperation } from './session-types.js';
import type { PermissionMode } from './turn-types.js';

export class ProviderTable {
  readonly #providers = new Map<string, AgentProvider>();
  readonly #hooks: SessionHooks;

  constructor(hooks: SessionHooks) {
    this.#hooks = hooks;
  }

  /** Adds a provider; a second provider of the same name is refused unless `replace` is set. */
  register(provider: AgentProvider, options: { readonly replace?: boolean } = {}): void {
    if (this.#providers.has(provider.name) && !options.replace) {
      throw new TuttiError('TUTTI_ERR_PLUGIN_DUPLICATE_PROVIDER', { provider: provider.name });
    }
    const parsed = providerFlagsSchema.safeParse(provider.flags);
    if (!parsed.success) {
      throw new TuttiError('TUTTI_ERR_PLUGIN_INVALID_PROVIDER', {
        provider: provider.name,
        reason: `flags: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'flags'} ${issue.message}`).join('; ')}`,
      });
    }
    const flags = parsed.data;
    if (Boolean(provider.handshake) !== Boolean(provider.probeOf)) {
      throw new TuttiError('TUTTI_ERR_PLUGIN_INVALID_PROVIDER', {
        provider: provider.name,
        reason: 'a provider with a handshake also says what it means (probeOf), and only then',
      });
    }
    this.#providers.set(provider.name, Object.freeze({ ...provider, flags: Object.freeze(flags) }));
    tapStandardRefreshStrategies(this.#hooks, provider.name);
    guardProjections(this.#hooks, provider);
  }

  /** The provider of that name, if registered. */
  get(name: string): AgentProvider | undefined {
    return this.#providers.get(name);
  }

  /** The provider of that name; TUTTI_ERR_SESSION_UNKNOWN_PROVIDER naming the known ones. */
  require(name: string): AgentProvider {
    const provider = this.#providers.get(name);
    if (!provider) {
      throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN_PROVIDER', {
        provider: name,
        known: this.known(),
      });
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
    const supported =
      operation === 'new' ||
      (operation === 'load' ? provider.loadSession : provider.resumeSession) !== undefined;
    if (!supported) {
      throw new TuttiError('TUTTI_ERR_SESSION_UNSUPPORTED', { provider: provider.name, operation });
    }
    if (permissions !== 'agent' && !provider.permissions?.modes.includes(permissions)) {
      throw new TuttiError('TUTTI_ERR_SESSION_PERMISSIONS_UNSUPPORTED', {
        provider: provider.name,
        mode: permissions,
      });
    }
    return provider;
  }

  /** The registered names, for an error. */
  known(): string {
    return [...this.#providers.keys()].join(', ') || '(none)';
  }

  /** Names and capabilities of the registered providers, derived from what each implements. */
  list(): { name: string; capabilities: ProviderCapabilities }[] {
    return [...this.#providers.values()].map((provider) => ({
      name: provider.name,
      capabilities: {
        ...provider.flags,
        handshake: Boolean(provider.handshake),
        load: Boolean(provider.loadSession),
        resume: Boolean(provider.resumeSession),
        refresh: refreshStrategiesOf(this.#hooks, provider.name),
        permissions: [...(provider.permissions?.modes ?? []), 'agent'],
      },
    }));
  }
}
