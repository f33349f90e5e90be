/**
 * Releases of the upgrade bench: one connector key, one release folder per version, each
 * running the stdio fixture server (by absolute path, with this Node binary), so every
 * install of the next folder is an upgrade of the same connector to a new version.
 */
import { writeRelease } from '@tutti/test-kit';

/** Key of the connector the upgrade bench upgrades; its echo tool is `<key>_echo`. */
export const UPGRADE_KEY = 'upg';

/** Version string of release number `n` (0, 1, 2, ...): `1.0.<n>`. */
export function upgradeVersion(n: number): string {
  return `1.0.${n}`;
}

/** Writes release `n` of the upgrade connector under `parent` and returns its folder. */
export function writeUpgradeRelease(parent: string, n: number): Promise<string> {
  return writeRelease({
    key: UPGRADE_KEY,
    name: 'Upgrade bench',
    description: `Upgrade bench connector, release ${n}.`,
    version: upgradeVersion(n),
    command: process.execPath,
    serverArgs: [],
    parent,
    folder: `v${n}`,
  });
}
