/**
 * Tags every error escaping a plugin's hook tap with the plugin's and the hook's name, and
 * turns the taps of a plugin whose `apply` failed into no-ops, so a broken plugin is
 * skipped as a whole. One guard per hook table, kept in a WeakMap.
 */
import { isTuttiError, TuttiError } from '../errors/index.js';
import { type SessionHooks, visitHooks } from '../session/hooks.js';

interface Guard {
  /** The plugin whose `apply` is running; taps registered meanwhile belong to it. */
  owner: string | undefined;
  readonly disabled: Set<string>;
}

interface TapInfo {
  name: string;
  type: 'sync' | 'async' | 'promise';
  fn: (...args: unknown[]) => unknown;
}

const guards = new WeakMap<SessionHooks, Guard>();

/**
 * Runs `apply` with the taps it registers (until it settles) attributed to `plugin`; when
 * it fails, the plugin's taps go inert. Plugins are applied one at a time.
 */
export async function applyAs(
  hooks: SessionHooks,
  plugin: string,
  apply: () => void | Promise<void>,
): Promise<void> {
  const guard = guardOf(hooks);
  guard.owner = plugin;
  try {
    await apply();
  } catch (error) {
    guard.disabled.add(plugin);
    throw error;
  } finally {
    guard.owner = undefined;
  }
}

/** Marks a plugin's taps inert (e.g. when its apply failed after it tapped). */
export function disablePlugin(hooks: SessionHooks, plugin: string): void {
  guardOf(hooks).disabled.add(plugin);
}

function guardOf(hooks: SessionHooks): Guard {
  const guard = guards.get(hooks);
  if (guard) return guard;
  const created: Guard = { owner: undefined, disabled: new Set() };
  visitHooks(hooks, (hook, hookName) => {
    const waterfall = hook.constructor.name.includes('Waterfall');
    hook.intercept({
      register: (tap: TapInfo) => {
        const owner = created.owner;
        if (owner === undefined) return tap;
        return { ...tap, fn: wrapTap(tap, owner, hookName, waterfall, created) };
      },
    });
  });
  guards.set(hooks, created);
  return created;
}

function wrapTap(
  tap: TapInfo,
  plugin: string,
  hook: string,
  waterfall: boolean,
  guard: Guard,
): (...args: unknown[]) => unknown {
  const { fn } = tap;
  const skip = (args: unknown[]) => (waterfall ? args[0] : undefined);
  const tag = (error: unknown) => tagError(error, plugin, hook);
  if (tap.type === 'promise') {
    return async (...args) => {
      if (guard.disabled.has(plugin)) return skip(args);
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
      if (guard.disabled.has(plugin)) return callback(null, skip(args));
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
    if (guard.disabled.has(plugin)) return skip(args);
    try {
      return fn(...args);
    } catch (error) {
      throw tag(error);
    }
  };
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
