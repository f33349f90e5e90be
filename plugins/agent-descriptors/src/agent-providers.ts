/**
 * Which ACP provider each name has, from three sources: the shipped descriptors, the
 * user's `<home>/agents/*.json` (a user descriptor of a shipped id replaces it) and the
 * agents installed in `<home>/agents/<id>/` (an installed agent replaces a descriptor of its
 * id, and gets the descriptor that extends it). Every change (an install, a removal, a
 * user file written or deleted) re-decides only the names it touches, one change at a time.
 */
import { type InstalledAgent, type PluginHost, TuttiError } from '@tutti/core';
import { createAcpProvider } from '@tutti/provider-acp';
import { type ExtendingDescriptors, installedAgentDescriptor } from './installed-providers.js';
import { type DescriptorLoad, extendsAgent, parsedOf } from './load-descriptors.js';

/** The providers of one plugin host. */
export class AgentProviders {
  readonly #host: PluginHost;
  readonly #shipped: readonly DescriptorLoad[];
  /** User descriptors by file. */
  readonly #user = new Map<string, DescriptorLoad>();
  readonly #installed = new Map<string, InstalledAgent>();
  /** Names this plugin registered a provider under. */
  readonly #registered = new Set<string>();
  /** Changes run one after the other. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    host: PluginHost,
    shipped: readonly DescriptorLoad[],
    user: readonly DescriptorLoad[],
    installed: readonly InstalledAgent[],
  ) {
    this.#host = host;
    this.#shipped = shipped;
    for (const load of user) this.#user.set(load.file, load);
    for (const agent of installed) this.#installed.set(agent.id, agent);
  }

  /** Registers every name once (at `apply`) and logs the files that were not used. */
  async start(): Promise<void> {
    for (const load of this.#shipped) this.#log(load, true);
    for (const load of this.#user.values()) this.#log(load, false);
    const names = new Set<string>(this.#installed.keys());
    for (const load of [...this.#shipped, ...this.#user.values()]) {
      if ('descriptor' in load) names.add(load.parsed.id);
    }
    for (const name of [...names].sort()) await this.#decide(name);
  }

  /**
   * An agent was installed (or replaced): its provider is built and registered, or the
   * TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR that keeps it from running is thrown (the install is
   * undone).
   */
  installed(agent: InstalledAgent): Promise<void> {
    return this.#serial(async () => {
      const descriptor = await installedAgentDescriptor(agent, this.#descriptors());
      this.#register(descriptor);
      this.#installed.set(agent.id, agent);
    });
  }

  /** An agent was removed: a descriptor of its id takes the name back, else it has none. */
  removed(id: string): Promise<void> {
    return this.#serial(async () => {
      this.#installed.delete(id);
      await this.#decide(id);
    });
  }

  /** A user descriptor file was written (`load`) or deleted (undefined). */
  userChanged(file: string, load: DescriptorLoad | undefined): Promise<void> {
    return this.#serial(async () => {
      const before = this.#user.get(file);
      if (load) {
        this.#user.set(file, load);
        this.#log(load, false);
      } else {
        this.#user.delete(file);
      }
      const names = new Set<string>();
      for (const changed of [before, load]) {
        const parsed = changed && parsedOf(changed);
        if (!parsed) continue;
        names.add(parsed.id);
        for (const id of this.#installed.keys()) if (extendsAgent(parsed, id)) names.add(id);
      }
      for (const name of names) await this.#decide(name);
    });
  }

  #serial(change: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(change);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #descriptors(): ExtendingDescriptors {
    return { user: [...this.#user.values()], shipped: this.#shipped };
  }

  /**
   * Registers what `name` has now: its installed agent, else a user descriptor of that id,
   * else a shipped one; removes its provider when none is left. An installed agent that
   * cannot be built (a user descriptor changed for the worse) keeps what it had, logged.
   */
  async #decide(name: string): Promise<void> {
    const agent = this.#installed.get(name);
    if (agent) {
      try {
        this.#register(await installedAgentDescriptor(agent, this.#descriptors()));
        return;
      } catch (error) {
        const { code, message } = error as { code?: string; message: string };
        this.#host.logger?.warn({ agent: name, code }, message);
        if (this.#registered.has(name)) return;
      }
    }
    const runnable = (loads: Iterable<DescriptorLoad>) =>
      [...loads].find((load) => 'descriptor' in load && load.parsed.id === name);
    const load = runnable(this.#user.values()) ?? runnable(this.#shipped);
    try {
      if (load && 'descriptor' in load) this.#register(load.descriptor);
      else if (this.#registered.delete(name)) this.#host.removeProvider(name);
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      this.#host.logger?.warn({ descriptor: name, code }, message);
    }
  }

  #register(descriptor: Parameters<typeof createAcpProvider>[0]): void {
    if (!this.#registered.has(descriptor.name) && this.#host.hasProvider(descriptor.name)) {
      // Another plugin's provider has this name: never a clash that fails this plugin.
      throw new TuttiError('TUTTI_ERR_PLUGIN_DUPLICATE_PROVIDER', { provider: descriptor.name });
    }
    const provider = createAcpProvider(descriptor, { logger: this.#host.logger });
    this.#host.registerProvider(provider, { replace: this.#registered.has(descriptor.name) });
    this.#registered.add(descriptor.name);
  }

  /** Logs a file that is not used on its own: refused, or waiting for its agent. */
  #log(load: DescriptorLoad, shipped: boolean): void {
    const logger = this.#host.logger;
    if ('error' in load) {
      // A shipped agent that is not installed here is not an error of the user's.
      const notInstalled = shipped && load.error.details.field === 'command';
      logger?.[notInstalled ? 'info' : 'warn'](
        { file: load.file, code: load.error.code },
        load.error.message,
      );
    } else if ('waits' in load) {
      const parsed = load.parsed;
      if ([...this.#installed.keys()].some((id) => extendsAgent(parsed, id))) return;
      const ids = [...new Set([parsed.id, ...parsed.registryIds])].join('", "');
      logger?.info(
        { file: load.file },
        `the descriptor "${parsed.id}" names no command: it waits for an installed agent "${ids}" (POST /v1/agents/install)`,
      );
    }
  }
}
