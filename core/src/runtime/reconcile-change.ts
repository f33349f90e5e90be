/**
 * What a reconcile changed for one connector, from the digest the runtime knew before and
 * the release the store holds now: installed, upgraded, removed or unchanged (what the
 * first reconcile finds installed is no install); and the host event that announces an
 * install or an upgrade.
 */
import type { TuttiEventBody } from '../events/index.js';
import type { InstalledConnector } from '../store/index.js';

/** What changed for one connector in a reconcile. */
export type ConnectorChange = 'installed' | 'upgraded' | 'removed' | 'unchanged';

/**
 * The change from `digestBefore` (undefined: the runtime knew no connector of the key) to
 * `release` (undefined: none installed); `first` on the daemon's first reconcile.
 */
export function changeOf(
  release: InstalledConnector | undefined,
  digestBefore: string | undefined,
  first: boolean,
): ConnectorChange {
  if (!release) return digestBefore === undefined ? 'unchanged' : 'removed';
  if (digestBefore === undefined) return first ? 'unchanged' : 'installed';
  return digestBefore === release.digest ? 'unchanged' : 'upgraded';
}

/** The event that announces `change` of `key` to `release`, when it is an install or upgrade. */
export function announcementOf(
  key: string,
  change: ConnectorChange,
  release: InstalledConnector | undefined,
): TuttiEventBody | undefined {
  if (!release || (change !== 'installed' && change !== 'upgraded')) return undefined;
  return {
    type: change === 'installed' ? 'connector.installed' : 'connector.upgraded',
    key,
    version: release.manifest.version,
    revision: release.revision,
  };
}
