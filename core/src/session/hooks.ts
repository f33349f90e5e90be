/**
 * The one hook table of the agent session life cycle (tapable). `docs/hooks.md` documents
 * exactly these hooks; a test keeps the two in step.
 */
import { isDeepStrictEqual } from 'node:util';
import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import type { MCPServerBinding, PreparedRuntime } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import type { ProviderParams, ProviderSession, SessionContext } from './types.js';

/** Extra argument of `prepare` taps: the session and its authoritative bindings. */
export interface PrepareContext {
  readonly session: SessionContext;
  /** The bindings every tap's result must carry unchanged (frozen). */
  readonly bindings: readonly MCPServerBinding[];
}

/** Argument of `toolsListChanged` taps: one live session to bring up to date. */
export interface RefreshContext {
  readonly session: SessionContext;
  /** The provider's handle on the live session. */
  readonly handle: ProviderSession;
  /** Version of the tools snapshot that changed. */
  readonly version: number;
  /** True when the connector server delivers `notifications/tools/list_changed` to agents. */
  readonly listChangedDelivered: boolean;
  /** Re-prepares the session (a fresh token, current skill roots) for a reload. */
  rebind(): Promise<PreparedRuntime>;
}

/** Names of the standard refresh strategies, in the order they are tried. */
export const REFRESH_STRATEGIES = Object.freeze({
  listChanged: 'list-changed',
  nativeReload: 'native-reload',
  reconnectBeforeTurn: 'reconnect-before-turn',
  resumeOrRestart: 'resume-or-restart',
} as const);

/** Tap stages of the standard refresh strategies; a plugin picks a stage between them. */
export const REFRESH_STAGES = Object.freeze({
  listChanged: 0,
  nativeReload: 100,
  reconnectBeforeTurn: 200,
  resumeOrRestart: 300,
} as const);

/** Creates the frozen hook table of one session host. */
export function createSessionHooks() {
  const hooks = Object.freeze({
    /** Transforms the prepared runtime; every tap's result must keep `mcpServers` as given. */
    prepare: new AsyncSeriesWaterfallHook<[PreparedRuntime, PrepareContext]>(
      ['runtime', 'context'],
      'prepare',
    ),
    /** Transforms a provider's `session/new` params before they are sent. */
    sessionNew: new AsyncSeriesWaterfallHook<[ProviderParams, PreparedRuntime, SessionContext]>(
      ['params', 'runtime', 'session'],
      'sessionNew',
    ),
    /** Transforms a provider's `session/load` params before they are sent. */
    sessionLoad: new AsyncSeriesWaterfallHook<[ProviderParams, PreparedRuntime, SessionContext]>(
      ['params', 'runtime', 'session'],
      'sessionLoad',
    ),
    /** Transforms a provider's `session/resume` params before they are sent. */
    sessionResume: new AsyncSeriesWaterfallHook<[ProviderParams, PreparedRuntime, SessionContext]>(
      ['params', 'runtime', 'session'],
      'sessionResume',
    ),
    /** Refresh chain after `notifications/tools/list_changed`: the first strategy name wins. */
    toolsListChanged: new AsyncSeriesBailHook<[RefreshContext], string | undefined>(
      ['refresh'],
      'toolsListChanged',
    ),
    /** Runs after a session closed and its token was revoked. */
    sessionClose: new AsyncSeriesHook<[SessionContext]>(['session'], 'sessionClose'),
  });
  hooks.prepare.intercept({ register: guardBindings });
  return hooks;
}

/** The hook table of a session host; see {@link createSessionHooks}. */
export type SessionHooks = ReturnType<typeof createSessionHooks>;

/** Name of each hook. */
export type SessionHookName = keyof SessionHooks;

/** What a tap's return does, per hook: the source of the last column of `docs/hooks.md`. */
export const HOOK_TAP_RETURNS: Readonly<Record<SessionHookName, string>> = Object.freeze({
  prepare: 'the runtime for the next tap; mcpServers must be returned unchanged',
  sessionNew: 'the params for the next tap; the last result is sent',
  sessionLoad: 'the params for the next tap; the last result is sent',
  sessionResume: 'the params for the next tap; the last result is sent',
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
