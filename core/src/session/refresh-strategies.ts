/**
 * The four standard strategies of the `toolsListChanged` refresh chain, tapped in the
 * order of spec 7.6: the agent's own list-changed handling, the provider's native reload,
 * a reconnect before the next turn, and finally asking for a resume or restart.
 */
import { REFRESH_STAGES, REFRESH_STRATEGIES, type SessionHooks } from './hooks.js';

const PLUGIN_NAME = 'StandardRefreshStrategies';

/** Taps the standard strategies; the last one always handles, so the chain never ends empty. */
export function tapStandardRefreshStrategies(hooks: SessionHooks): void {
  hooks.toolsListChanged.tapPromise(
    { name: PLUGIN_NAME, stage: REFRESH_STAGES.listChanged },
    async (refresh) =>
      refresh.session.capabilities.listChanged && refresh.listChangedDelivered
        ? REFRESH_STRATEGIES.listChanged
        : undefined,
  );
  hooks.toolsListChanged.tapPromise(
    { name: PLUGIN_NAME, stage: REFRESH_STAGES.nativeReload },
    async (refresh) => {
      if (!refresh.handle.reload) return undefined;
      return (await refresh.handle.reload(refresh.rebind))
        ? REFRESH_STRATEGIES.nativeReload
        : undefined;
    },
  );
  hooks.toolsListChanged.tapPromise(
    { name: PLUGIN_NAME, stage: REFRESH_STAGES.reconnectBeforeTurn },
    async (refresh) => {
      if (!refresh.handle.reconnectBeforeNextTurn) return undefined;
      return (await refresh.handle.reconnectBeforeNextTurn())
        ? REFRESH_STRATEGIES.reconnectBeforeTurn
        : undefined;
    },
  );
  hooks.toolsListChanged.tapPromise(
    { name: PLUGIN_NAME, stage: REFRESH_STAGES.resumeOrRestart },
    async () => REFRESH_STRATEGIES.resumeOrRestart,
  );
}
