/**
 * The one hook table of the agent session life cycle (tapable). Hooks are for plugins other
 * than the provider: the host calls a provider's methods, then runs the taps. The
 * projection and refresh hooks are per provider (`HookMap`, as webpack gives each
 * compilation its own hooks): a plugin tapping a provider's hooks sees that provider's real
 * params. `docs/hooks.md` documents exactly these hooks; a test keeps the two in step.
 */
import { isDeepStrictEqual } from 'node:util';
import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type { MCPServerBinding, PreparedRuntime } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { SESSION_OPERATIONS } from './operations.js';
import type { AgentProvider, LiveSession, Reproject } from './provider-contract.js';
import type { InterceptableHook } from './tap-guard.js';
import type {
  ParamsOf,
  ProviderParams,
  SessionContext,
  SessionHookContext,
  SessionOperation,
} from './session-types.js';

/** Extra argument of `prepare` taps: the session and its authoritative bindings. */
export interface PrepareContext {
  readonly session: SessionContext;
  /** The bindings every tap's result must carry unchanged (frozen). */
  readonly bindings: readonly MCPServerBinding[];
}

/** Argument of `toolsListChanged` taps: one live session to bring up to date. */
export interface RefreshContext<P = ProviderParams> {
  readonly session: SessionHookContext;
  /** The provider's handle on the live session (for a host-driven session: the host's). */
  readonly handle: LiveSession<P>;
  /** Version of the tools snapshot that changed. */
  readonly version: number;
  /** True when the connector server delivers `notifications/tools/list_changed` to agents. */
  readonly listChangedDelivered: boolean;
  /**
   * Prepares the session again (a fresh token, which revokes the old one) and projects it
   * for `operation`; call it only when the agent can take the result.
   */
  readonly reproject: Reproject<P>;
}

/** Names of the standard refresh strategies, in the order they are tried. */
export const REFRESH_STRATEGIES = Object.freeze({
  listChanged: 'list-changed',
  nativeReload: 'native-reload',
  reconnectBeforeTurn: 'reconnect-before-turn',
  resumeOrRestart: 'resume-or-restart',
} as const);

/** Tap stages of the standard refresh strategies (core's); a plugin picks a stage between them. */
export const REFRESH_STAGES = Object.freeze({
  listChanged: 0,
  nativeReload: 100,
  reconnectBeforeTurn: 200,
  resumeOrRestart: 300,
} as const);

/** A projection hook of one provider. */
export type ProjectionHook<P = ProviderParams> = AsyncSeriesWaterfallHook<
  [P, PreparedRuntime, SessionHookContext]
>;
/** The refresh chain of one provider. */
export type RefreshHook<P = ProviderParams> = AsyncSeriesBailHook<
  [RefreshContext<P>],
  string | undefined
>;

/** Called with every hook of a table as it is created, per-provider hooks included. */
export type HookVisitor = (hook: InterceptableHook, name: string) => void;

/**
 * Creates the frozen hook table of one session host; `onHook` sees every hook as it is
 * created (the host's tap guard attaches there), per-provider hooks when first used.
 */
export function createSessionHooks(onHook?: HookVisitor) {
  const keyed = <H extends InterceptableHook>(name: string, create: (key: string) => H) =>
    new HookMap<H>((key: string) => {
      const hook = create(key);
      onHook?.(hook, `${name}.${key}`);
      return hook;
    }, name);
  const projection = (name: string) =>
    keyed(
      name,
      (key) =>
        new AsyncSeriesWaterfallHook<[ProviderParams, PreparedRuntime, SessionHookContext]>(
          ['params', 'runtime', 'session'],
          `${name}.${key}`,
        ),
    );
  const hooks = Object.freeze({
    /** Transforms the prepared runtime; every tap's result must keep `mcpServers` as given. */
    prepare: new AsyncSeriesWaterfallHook<[PreparedRuntime, PrepareContext]>(
      ['runtime', 'context'],
      'prepare',
    ),
    /** Per provider: projects the runtime into that provider's `session/new` params. */
    sessionNew: projection('sessionNew'),
    /** Per provider: projects the runtime into that provider's `session/load` params. */
    sessionLoad: projection('sessionLoad'),
    /** Per provider: projects the runtime into that provider's `session/resume` params. */
    sessionResume: projection('sessionResume'),
    /** Per provider: refresh chain after a tools change; the first strategy name wins. */
    toolsListChanged: keyed(
      'toolsListChanged',
      (key) =>
        new AsyncSeriesBailHook<[RefreshContext], string | undefined>(
          ['refresh'],
          `toolsListChanged.${key}`,
        ),
    ),
    /** Runs after a session closed and its token was revoked. */
    sessionClose: new AsyncSeriesHook<[SessionContext]>(['session'], 'sessionClose'),
  });
  hooks.prepare.intercept({ register: guardBindings });
  for (const [name, hook] of Object.entries(hooks)) {
    if (!(hook instanceof HookMap)) onHook?.(hook, name);
  }
  return hooks;
}

/** The hook table of a session host; see {@link createSessionHooks}. */
export type SessionHooks = ReturnType<typeof createSessionHooks>;

/** Name of each hook. */
export type SessionHookName = keyof SessionHooks;

/** The hooks of one provider, typed with that provider's params. */
export interface ProviderHooks<P> {
  readonly sessionNew: ProjectionHook<P>;
  readonly sessionLoad: ProjectionHook<P>;
  readonly sessionResume: ProjectionHook<P>;
  readonly toolsListChanged: RefreshHook<P>;
}

/**
 * The hooks of `provider`, typed with its params: pass the provider object (what
 * `registerProvider` hands back), or a name `ProviderParamsMap` knows.
 * @example providerHooks(host.hooks, 'codex').sessionNew.tapPromise('Audit', async (config) => config);
 */
export function providerHooks<P>(
  hooks: SessionHooks,
  provider: AgentProvider<string, P>,
): ProviderHooks<P>;
export function providerHooks<N extends string>(
  hooks: SessionHooks,
  provider: N,
): ProviderHooks<ParamsOf<N>>;
export function providerHooks<P>(
  hooks: SessionHooks,
  provider: string | { readonly name: string },
): ProviderHooks<P> {
  const name = typeof provider === 'string' ? provider : provider.name;
  // The table holds every provider's hooks with the params type they all share.
  return {
    sessionNew: hooks.sessionNew.for(name),
    sessionLoad: hooks.sessionLoad.for(name),
    sessionResume: hooks.sessionResume.for(name),
    toolsListChanged: hooks.toolsListChanged.for(name),
  } as unknown as ProviderHooks<P>;
}

/** The projection hook of `operation` for `provider`. */
export function projectionHook(
  hooks: SessionHooks,
  provider: string,
  operation: SessionOperation,
): ProjectionHook {
  return hooks[SESSION_OPERATIONS[operation].hook].for(provider);
}

/** What a tap's return does, per hook: the source of the last column of `docs/hooks.md`. */
export const HOOK_TAP_RETURNS: Readonly<Record<SessionHookName, string>> = Object.freeze({
  prepare: 'the runtime for the next tap; mcpServers must be returned unchanged',
  sessionNew: "the provider's params for the next tap; the last result is checked and used",
  sessionLoad: "the provider's params for the next tap; the last result is checked and used",
  sessionResume: "the provider's params for the next tap; the last result is checked and used",
  toolsListChanged: 'a strategy name ends the chain and is recorded; undefined passes on',
  sessionClose: 'ignored',
});

type PrepareTap = (runtime: PreparedRuntime, context: PrepareContext) => Promise<PreparedRuntime>;

/** Wraps each `prepare` tap so that a result without the authoritative bindings throws. */
function guardBindings<T extends { name: string; type: string; fn: unknown }>(tap: T): T {
  if (tap.type !== 'promise') {
    throw new TypeError(`prepare is tapped with tapPromise only (tap "${tap.name}")`);
  }
  const fn = tap.fn as PrepareTap;
  const guarded: PrepareTap = async (runtime, context) => {
    const result = await fn(runtime, context);
    assertBindings(result, context, tap.name);
    return result;
  };
  return { ...tap, fn: guarded };
}

/** Throws unless `runtime.mcpServers` equals the context's authoritative bindings. */
export function assertBindings(runtime: unknown, context: PrepareContext, tapName: string): void {
  const servers = (runtime as Partial<PreparedRuntime> | undefined)?.mcpServers;
  if (!isDeepStrictEqual(servers, context.bindings)) {
    throw new TuttiError('TUTTI_ERR_SESSION_BINDING_DROPPED', {
      plugin: tapName,
      session: context.session.agentSessionId,
    });
  }
}
