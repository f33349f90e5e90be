/**
 * Who tapped what: every error escaping a plugin's hook tap is tagged with the plugin's and
 * the hook's name, and the taps of a plugin whose `apply` failed turn into no-ops, so a
 * broken plugin is skipped as a whole. One guard per hook table: `createSessionHooks`
 * attaches it to every hook it creates, per-provider hooks included.
 */
import { isTuttiError, TuttiError } from '../errors/index.js';

interface TapInfo {
  name: string;
  type: 'sync' | 'async' | 'promise';
  fn: (...args: unknown[]) => unknown;
}

/** A hook the guard can intercept (any tapable hook). */
export interface InterceptableHook {
  intercept(interceptor: object): void;
}

export class TapGuard {
  /** The plugin whose `apply` is running; taps registered meanwhile belong to it. */
  #owner: string | undefined;
  readonly #disabled = new Set<string>();

  /** Intercepts `hook` (named `name`): taps registered during an `applyAs` are guarded. */
  readonly attach = (hook: InterceptableHook, name: string): void => {
    const waterfall = hook.constructor.name.includes('Waterfall');
    hook.intercept({
      register: (tap: TapInfo) => {
        const owner = this.#owner;
        if (owner === undefined) return tap;
        return { ...tap, fn: this.#wrap(tap, owner, name, waterfall) };
      },
    });
  };

  /**
   * Runs `apply` with the taps it registers (until it settles) attributed to `plugin`; when
   * it fails, the plugin's taps go inert. Plugins are applied one at a time.
   */
  async applyAs(plugin: string, apply: () => void | Promise<void>): Promise<void> {
    this.#owner = plugin;
    try {
      await apply();
    } catch (error) {
      this.#disabled.add(plugin);
      throw error;
    } finally {
      this.#owner = undefined;
    }
  }

  /** Marks a plugin's taps inert (e.g. when its apply failed after it tapped). */
  disable(plugin: string): void {
    this.#disabled.add(plugin);
  }

  #wrap(
    tap: TapInfo,
    plugin: string,
    hook: string,
    waterfall: boolean,
  ): (...args: unknown[]) => unknown {
    const { fn } = tap;
    const disabled = this.#disabled;
    const skip = (args: unknown[]) => (waterfall ? args[0] : undefined);
    const tag = (error: unknown) => tagError(error, plugin, hook);
    if (tap.type === 'promise') {
      return async (...args) => {
        if (disabled.has(plugin)) return skip(args);
        try {
          return await fn(...args);
        } catch (error) {
          throw tag(error);
        }
      };
    }
    if (tap.type === 'async') {
      return (...args) => {
        const callback = args.pop() as (error?: unknown, result?: unknown) => void;
        if (disabled.has(plugin)) return callback(null, skip(args));
        try {
          fn(...args, (error?: unknown, result?: unknown) =>
            error ? callback(tag(error)) : callback(null, result),
          );
        } catch (error) {
          callback(tag(error));
        }
      };
    }
    return (...args) => {
      if (disabled.has(plugin)) return skip(args);
      try {
        return fn(...args);
      } catch (error) {
        throw tag(error);
      }
    };
  }
}

/** A TuttiError naming the plugin and hook; a TuttiError that already names a plugin stays. */
function tagError(error: unknown, plugin: string, hook: string): TuttiError {
  if (isTuttiError(error) && 'plugin' in error.details) return error;
  return new TuttiError(
    'TUTTI_ERR_PLUGIN_HOOK_FAILED',
    { plugin, hook, reason: error instanceof Error ? error.message : String(error) },
    { cause: error },
  );
}
