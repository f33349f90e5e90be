/**
 * The connector runtime's CLI shims: each key's `tutti-connector-<key>` kept equal to the
 * store, whatever its upstream is doing (published for the installed release while the
 * connector is installed and authorized, removed as soon as it is not), and how each
 * stands, for the CLI interface's status.
 */
import { publishedGeneration, publishShim, removeShim } from '../shims/index.js';
import type { ConnectorStore, InstalledConnector } from '../store/index.js';

/** The shims of one runtime. */
export interface ShimSync {
  /**
   * Publishes `key`'s shim for `connector` (nothing when it is already published for that
   * release), or removes it when `connector` is undefined (not installed or not
   * authorized). Rejects when the shim cannot be written; `state` then says `failed`.
   */
  sync(key: string, connector: InstalledConnector | undefined): Promise<void>;
  /** `published`, `failed` (the last write failed), or undefined (none is due yet). */
  state(key: string): 'published' | 'failed' | undefined;
}

/**
 * Shims in `binDir`; a shim holds no secret, it reads the credential at run time (its file,
 * or the keychain through the store's reader: `store.credentialSource`).
 */
export function createShimSync(binDir: string, store: ConnectorStore): ShimSync {
  /** The shim published per key: its generation and the release it points at. */
  const published = new Map<string, { generation: number; digest: string }>();
  /** Keys whose shim could not be written the last time it was due. */
  const failures = new Set<string>();

  async function write(key: string, connector: InstalledConnector | undefined): Promise<void> {
    const cli = connector?.paths.cli;
    const current = published.get(key);
    if (connector && cli) {
      if (current?.digest === connector.digest) return;
      const auth = connector.manifest.auth;
      const shim = await publishShim({
        binDir,
        key,
        generation: Math.max(connector.revision, current?.generation ?? 1),
        entrypoint: { command: cli.command, args: [...cli.args] },
        ...(auth.kind !== 'none' &&
          auth.env && { credential: { env: auth.env, ...store.credentialSource(key) } }),
      });
      published.set(key, { generation: shim.generation, digest: connector.digest });
      return;
    }
    published.delete(key);
    const generation = await publishedGeneration(binDir, key);
    if (generation !== undefined) await removeShim({ binDir, key, generation });
  }

  return {
    async sync(key, connector) {
      try {
        await write(key, connector);
        failures.delete(key);
      } catch (error) {
        failures.add(key);
        throw error;
      }
    },
    state: (key) => (published.has(key) ? 'published' : failures.has(key) ? 'failed' : undefined),
  };
}
