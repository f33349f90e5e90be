/**
 * What a connector gets from its runtime: the shared parts (store, registry, catalog, the
 * skill reader, the launcher), the settings of its starts and retries, and the runtime's
 * queue, recorder and close state.
 */
import type { ConnectorCatalog } from '../catalog/index.js';
import type { ProcessSupervisor } from '../process/index.js';
import type { OAuthClients } from '../oauth/types.js';
import type { ConnectorSandbox } from '../sandbox/index.js';
import type { ConnectorMCPRegistry } from '../registry/index.js';
import type { ConnectorStore } from '../store/index.js';
import type { BackoffOptions } from './backoff.js';
import type { UpstreamLauncher } from './launch-upstream.js';
import type { SkillCache } from './release-facts.js';
import type { CallCounters } from './tracked-client.js';
import type { RuntimeEventKind, RuntimeLogger } from './types.js';

/** What a connector gets from its runtime: the shared parts and where its work runs. */
export interface ConnectorServices {
  readonly store: ConnectorStore;
  readonly registry: ConnectorMCPRegistry;
  readonly catalog: ConnectorCatalog;
  /** The one skill reader, cached per release digest. */
  readonly skills: SkillCache;
  readonly logger: RuntimeLogger;
  readonly launch: UpstreamLauncher;
  /** The daemon as the OAuth client of remote connectors that sign in, when it is one. */
  readonly oauth?: OAuthClients | undefined;
  /** Isolation of stdio servers and their state folders, when the daemon has it. */
  readonly sandbox?: ConnectorSandbox | undefined;
  readonly supervisor?: ProcessSupervisor | undefined;
  readonly startTimeoutMs?: number | undefined;
  readonly backoff: BackoffOptions;
  /** A run at least this long after ready was healthy: its crash restarts at once. */
  readonly stableMs: number;
  readonly now: () => number;
  /** Longest wait for an old generation's calls before it is closed. */
  readonly drainMs: number;
  /** Failures in a row after which a connector stops retrying (parks) until told. */
  readonly parkAfter: number;
  readonly counters?:
    | (CallCounters & { restart(key: string): void; crash(key: string): void })
    | undefined;
  /** Runs `work` on this connector's place in the runtime's queue. */
  enqueue(key: string, work: () => Promise<void>): void;
  /** Records what happened (the runtime logs and publishes it). */
  record(key: string, kind: RuntimeEventKind, generation?: number, detail?: string): void;
  /** Hands over an upstream draining in the background (the runtime awaits it at close). */
  retiring(closing: Promise<void>, digest: string): void;
  /** True once the runtime is closing: nothing new starts. */
  closed(): boolean;
  /** Syncs `key` with the store now (already on its queue). */
  syncNow(key: string): Promise<void>;
}
