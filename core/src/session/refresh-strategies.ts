/**
 * The refresh chain of each provider (`toolsListChanged`): core taps the four standard
 * strategies on every provider's chain, and each handles what the live session can take:
 * the agent's own list_changed handling when the provider declares it and the server
 * delivers it; a native reload when the session has `reload`; a reconnect before its next
 * turn when it has `reconnectBeforeNextTurn`; else asking for a resume or restart. A plugin
 * may tap a strategy of its own at a stage between. What a chain holds is what
 * `GET /v1/providers` shows as its `refresh`.
 */
import type { RefreshAction } from '../events/index.js';
import { REFRESH_STAGES, REFRESH_STRATEGIES, type SessionHooks } from './hooks.js';
import type { SessionMode } from './host-types.js';

const PLUGIN_NAME = 'StandardRefreshStrategies';

/** Taps the standard strategies on `provider`'s chain (the caller does so once per chain). */
export function tapStandardRefreshStrategies(hooks: SessionHooks, provider: string): void {
  const chain = hooks.toolsListChanged.for(provider);
  const tap = (stage: number) => ({ name: PLUGIN_NAME, stage });
  chain.tapPromise(tap(REFRESH_STAGES.listChanged), async (refresh) =>
    refresh.session.capabilities.listChanged && refresh.listChangedDelivered
      ? REFRESH_STRATEGIES.listChanged
      : undefined,
  );
  chain.tapPromise(tap(REFRESH_STAGES.nativeReload), async ({ handle, reproject }) =>
    handle.reload && (await handle.reload(reproject)) ? REFRESH_STRATEGIES.nativeReload : undefined,
  );
  chain.tapPromise(tap(REFRESH_STAGES.reconnectBeforeTurn), async ({ handle }) =>
    (await handle.reconnectBeforeNextTurn?.()) ? REFRESH_STRATEGIES.reconnectBeforeTurn : undefined,
  );
  chain.tapPromise(
    tap(REFRESH_STAGES.resumeOrRestart),
    async () => REFRESH_STRATEGIES.resumeOrRestart,
  );
}

const STAGE_NAMES = new Map<number, string>([
  [REFRESH_STAGES.listChanged, REFRESH_STRATEGIES.listChanged],
  [REFRESH_STAGES.nativeReload, REFRESH_STRATEGIES.nativeReload],
  [REFRESH_STAGES.reconnectBeforeTurn, REFRESH_STRATEGIES.reconnectBeforeTurn],
  [REFRESH_STAGES.resumeOrRestart, REFRESH_STRATEGIES.resumeOrRestart],
]);

/** The strategies of `provider`'s chain, in order: standard ones by stage, others by tap name. */
export function refreshStrategiesOf(hooks: SessionHooks, provider: string): string[] {
  const taps = hooks.toolsListChanged.get(provider)?.taps ?? [];
  const names = [...taps]
    .sort((a, b) => (a.stage ?? 0) - (b.stage ?? 0))
    .map(
      (tap) => (tap.name === PLUGIN_NAME ? STAGE_NAMES.get(tap.stage ?? 0) : undefined) ?? tap.name,
    );
  return [...new Set(names)];
}

/** What the one who drives the agent does after a refresh that `strategy` handled. */
export function refreshAction(strategy: string | undefined, mode: SessionMode): RefreshAction {
  switch (strategy) {
    case REFRESH_STRATEGIES.listChanged:
      return 'none';
    case REFRESH_STRATEGIES.nativeReload:
      return mode === 'host' ? 'reload' : 'none';
    case REFRESH_STRATEGIES.reconnectBeforeTurn:
      return 'reconnect-before-turn';
    case REFRESH_STRATEGIES.resumeOrRestart:
      return 'resume';
    default:
      // A plugin's own strategy handled it.
      return 'none';
  }
}
