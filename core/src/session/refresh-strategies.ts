/**
 * The refresh chain of each provider (`toolsListChanged`, keyed by provider name): core taps
 * the first and last of the standard strategies of spec 7.6 on every provider, the agent's
 * own list_changed handling and asking for a resume or restart; a provider taps its own
 * fallbacks between them (native reload at stage 100, reconnect before the next turn at
 * 200). What a provider's chain holds is what `GET /v1/providers` shows as its `refresh`.
 */
import type { RefreshAction } from '../events/index.js';
import { REFRESH_STAGES, REFRESH_STRATEGIES, type SessionHooks } from './hooks.js';
import type { SessionMode } from './host-types.js';

const PLUGIN_NAME = 'StandardRefreshStrategies';
const tapped = new WeakSet<object>();

/** Taps the standard strategies on `provider`'s chain (once); the last always handles. */
export function tapStandardRefreshStrategies(hooks: SessionHooks, provider: string): void {
  const chain = hooks.toolsListChanged.for(provider);
  if (tapped.has(chain)) return;
  tapped.add(chain);
  chain.tapPromise({ name: PLUGIN_NAME, stage: REFRESH_STAGES.listChanged }, async (refresh) =>
    refresh.session.capabilities.listChanged && refresh.listChangedDelivered
      ? REFRESH_STRATEGIES.listChanged
      : undefined,
  );
  chain.tapPromise(
    { name: PLUGIN_NAME, stage: REFRESH_STAGES.resumeOrRestart },
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
    .map((tap) => STAGE_NAMES.get(tap.stage ?? 0) ?? tap.name);
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
