/**
 * Reconcile (spec 6.2): keeps the registry, the catalog and the CLI shims equal to what is
 * installed and authorized, with one {@link Connector} per key and one queue: each key's
 * changes run one at a time, different keys in parallel. Installed + auth ready -> start,
 * list, commit, notify; upgrade -> the new release is fully listed before the swap and the
 * old closes after its calls drained; uninstall or auth loss -> fence, remove, notify,
 * close. `reconcile` says per key what changed (reconcile-change.ts); the runtime is the
 * one publisher of `connector.*` events, one per change (event-recorder.ts), and collects
 * the releases nothing uses any more.
 */
import { TuttiError } from '../errors/index.js';
import type { SkillDiagnostic } from '../skills/skill-limits.js';
import type { TuttiEventBody } from '../events/index.js';
import type { ProcessSupervisor } from '../process/index.js';
import type { OAuthClients } from '../oauth/types.js';
import type { ConnectorSandbox } from '../sandbox/index.js';
import type { ConnectorMCPRegistry } from '../registry/index.js';
import type { ConnectorSummary, ConnectorCatalog } from '../catalog/index.js';
import { listShimKeys } from '../shims/index.js';
import type { ConnectorStore } from '../store/index.js';
import { type BackoffOptions, DEFAULT_BACKOFF } from './backoff.js';
import { Connector, type SyncResult } from './connector.js';
import type { ConnectorServices } from './connector-services.js';
import { createEventRecorder, type EventRecorder } from './event-recorder.js';
import { sessionSkillRoot, statusOf, summariesOf } from './connector-status.js';
import { createKeyQueue } from './key-queue.js';
import { launchUpstream, type UpstreamLauncher } from './launch-upstream.js';
import { createSkillCache, credentialState } from './release-facts.js';
import { announcementOf, type ConnectorChange, changeOf } from './reconcile-change.js';
import { createShimSync } from './shim-sync.js';
import { createConnectorRedactors } from './connector-redactors.js';
import type { CallCounters } from './tracked-client.js';
import type { ConnectorStatus, RuntimeEvent, RuntimeLogger } from './types.js';

/** What the runtime needs. */
export interface ConnectorRuntimeOptions {
  store: ConnectorStore;
  registry: ConnectorMCPRegistry;
  catalog: ConnectorCatalog;
  /** State bin dir for `tutti-connector-<key>` shims. */
  binDir: string;
  logger: RuntimeLogger;
  supervisor?: ProcessSupervisor;
  launch?: UpstreamLauncher;
  /** The daemon as the OAuth client of remote connectors that sign in. */
  oauth?: OAuthClients;
  /** Isolation of stdio servers and their state folders (docs/sandbox.md). */
  sandbox?: ConnectorSandbox;
  startTimeoutMs?: number;
  backoff?: BackoffOptions;
  /**
   * A run at least this long after ready was healthy (default 10 s): its crash restarts at
   * once with the failure count reset. Only failed starts and crashes sooner than this
   * (a crash loop) count towards the backoff.
   */
  stableMs?: number;
  /** The clock (ms), for tests. */
  now?: () => number;
  /** Longest wait for an old generation's calls before it is closed (default 30 s). */
  drainMs?: number;
  /** Failures in a row after which a connector parks until told (default 5). */
  parkAfter?: number;
  counters?: CallCounters & { restart(key: string): void; crash(key: string): void };
  /** Every observation, as it is recorded. */
  onEvent?: (event: RuntimeEvent) => void;
  /**
   * Where the events for hosts go: `connector.*` (one per change) and `tools.changed` (one
   * per registry snapshot). The daemon passes its event hub.
   */
  events?: { publish(event: TuttiEventBody): void };
}

/** What a reconcile did to one connector. */
export interface ReconcileOutcome {
  readonly key: string;
  readonly change: ConnectorChange;
  /** Its status after the reconcile; null once it is gone. */
  readonly status: ConnectorStatus | null;
  /** Skills of its release that were skipped, and why. */
  readonly skipped: readonly SkillDiagnostic[];
}

/** The running connector runtime. */
export interface ConnectorRuntime {
  /**
   * Brings `keys` (default: every connector) in line with the store; resolves, once each
   * of them has settled, with what changed for each. A start still running for an older
   * revision of one of them (a replaced release or credential, an uninstall) is called off
   * first, so a slow upstream holds up only the change that replaces it, and nothing of
   * other keys.
   */
  reconcile(keys?: readonly string[]): Promise<ReconcileOutcome[]>;
  /**
   * Digests of the releases something runs from now: a connector's release (serving,
   * starting or held) and those of upstreams still draining after an upgrade.
   */
  releasesInUse(): Set<string>;
  /** Every installed connector, sorted by key, with its state and why it is in it. */
  status(): ConnectorStatus[];
  /**
   * The spec 9.2 summary of every installed connector, sorted by key, each interface with
   * its run condition and, unless ready, that condition's fixed advice.
   */
  available(): ConnectorSummary[];
  /** The skill folders agent sessions get, sorted by connector key (see `sessionSkillRoot`). */
  skillRoots(): string[];
  /**
   * Starts `key`'s installed release again now, a parked one included; resolves with its
   * status after the attempt. TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR when it is not installed.
   */
  retry(key: string): Promise<ConnectorStatus>;
  /** The skills of `key`'s installed release that are skipped, and why (read once per release). */
  skippedSkills(key: string): Promise<readonly SkillDiagnostic[]>;
  /** The last recorded events, oldest first. */
  events(): readonly RuntimeEvent[];
  /** `text` with every secret any connector's upstream was given masked. */
  redactSecrets(text: string): string;
  /**
   * A sign-in to `key`'s remote server succeeded: it starts now with the new grant;
   * resolves with its status after the attempt.
   */
  signedIn(key: string): Promise<ConnectorStatus | undefined>;
  /**
   * True when `key` is installed and may start: it needs no credential, has one of its
   * auth kind, or the grant of a sign-in stands for it.
   */
  authReady(key: string): Promise<boolean>;
  /** `key`'s sign-in was lost (`reason`, a fixed text): its tools go and it waits in `needs-auth`. */
  signInLost(key: string, reason: string): Promise<void>;
  /** Stops every upstream (the registry is left as it is: the daemon is going away). */
  close(): Promise<void>;
}

/** How long a run must last after ready to count as healthy (10 s). */
export const DEFAULT_STABLE_MS = 10_000;

/** Failures in a row after which a connector parks (`tuttid --park-after`). */
export const DEFAULT_PARK_AFTER = 5;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function byKey<T extends { key: string }>(a: T, b: T): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The runtime over the store's connectors; see the module doc. */
class Runtime implements ConnectorRuntime {
  readonly #options: ConnectorRuntimeOptions;
  readonly #connectors = new Map<string, Connector>();
  readonly #queue = createKeyQueue();
  readonly #shims: ReturnType<typeof createShimSync>;
  readonly #services: ConnectorServices;
  readonly #redactors = createConnectorRedactors();
  /** Upstreams being retired: drained and closed in the background, awaited by close(). */
  readonly #retiring = new Map<Promise<void>, string>();
  readonly #recorder: EventRecorder;
  #reconciled = false;
  #swept = false;
  #closed = false;

  constructor(options: ConnectorRuntimeOptions) {
    this.#options = options;
    this.#recorder = createEventRecorder(options);
    this.#shims = createShimSync(options.binDir, options.store);
    this.#services = {
      store: options.store,
      registry: options.registry,
      catalog: options.catalog,
      skills: createSkillCache(options.logger),
      logger: options.logger,
      launch: options.launch ?? launchUpstream,
      oauth: options.oauth,
      sandbox: options.sandbox,
      supervisor: options.supervisor,
      startTimeoutMs: options.startTimeoutMs,
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      stableMs: options.stableMs ?? DEFAULT_STABLE_MS,
      now: options.now ?? Date.now,
      drainMs: options.drainMs ?? 30_000,
      parkAfter: options.parkAfter ?? DEFAULT_PARK_AFTER,
      counters: options.counters,
      enqueue: (key, work) => void this.#queue.run(key, work),
      record: (key, kind, generation, detail) =>
        this.#recorder.record(key, kind, generation, detail),
      retiring: (closing, digest) => {
        this.#retiring.set(closing, digest);
        void closing.then(() => this.#retiring.delete(closing));
      },
      closed: () => this.#closed,
      syncNow: (key) => this.#sync(key).then(() => undefined),
    };
  }

  async reconcile(only?: readonly string[]): Promise<ReconcileOutcome[]> {
    const { store } = this.#options;
    const keys = new Set(
      only ?? [...store.installed().map((c) => c.key), ...this.#connectors.keys()],
    );
    const first = !this.#reconciled;
    this.#reconciled = true;
    const before = new Map<string, string | undefined>();
    for (const key of keys) {
      const release = store.get(key);
      const known = this.#connectors.get(key);
      before.set(key, known?.digest);
      // Listed as starting from now on, not only once its first sync gets to it.
      if (release && !known) this.#connectors.set(key, this.#connector(key, release));
    }
    // Shims left by an earlier daemon (of connectors gone since) are removed too.
    if (!this.#swept && !only) {
      this.#swept = true;
      for (const key of await listShimKeys(this.#options.binDir)) keys.add(key);
    }
    for (const key of keys) this.#connectors.get(key)?.callOffStaleStart(store.get(key)?.revision);
    const outcomes = await Promise.all(
      [...keys].map((key) =>
        this.#queue.run(key, () => this.#reconcileOne(key, first, before.get(key))),
      ),
    );
    if (outcomes.some((o) => o.change === 'upgraded' || o.change === 'removed')) {
      await this.#collectReleases();
    }
    return outcomes.sort(byKey);
  }

  releasesInUse(): Set<string> {
    const digests = new Set(this.#retiring.values());
    for (const connector of this.#connectors.values()) digests.add(connector.digest);
    return digests;
  }

  status(): ConnectorStatus[] {
    return this.#sorted(true).map(({ status }) => status);
  }

  available(): ConnectorSummary[] {
    return summariesOf(this.#sorted(), this.#options.catalog);
  }

  skillRoots(): string[] {
    return [...this.#connectors.values()].sort(byKey).flatMap((connector) => {
      const root = sessionSkillRoot(connector.entry, this.#shims.state(connector.key));
      return root === undefined ? [] : [root];
    });
  }

  events(): readonly RuntimeEvent[] {
    return this.#recorder.events();
  }

  async skippedSkills(key: string): Promise<readonly SkillDiagnostic[]> {
    const release = this.#options.store.get(key);
    if (!release) return [];
    return (await this.#services.skills.of(release).catch(() => undefined))?.diagnostics ?? [];
  }

  async retry(key: string): Promise<ConnectorStatus> {
    const connector = this.#connectors.get(key);
    if (!connector || !this.#options.store.get(key)) {
      throw new TuttiError('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR', { key });
    }
    await this.#queue.run(key, () => connector.retry());
    return this.#statusOf(connector, true);
  }

  async signedIn(key: string): Promise<ConnectorStatus | undefined> {
    const connector = this.#connectors.get(key);
    if (!connector) return undefined;
    this.#recorder.record(key, 'signed-in');
    await this.#queue.run(key, async () => {
      // Waiting for the grant: a sync starts it; held after a 401 of a keyless server, or
      // failed meanwhile: start it again.
      const result = await this.#sync(key);
      const entry = connector.entry;
      if (result === 'unchanged' && entry.state !== 'ready') await connector.retry();
    });
    return this.#statusOf(connector, true);
  }

  async authReady(key: string): Promise<boolean> {
    const { store } = this.#options;
    const release = store.get(key);
    if (!release) return false;
    return (await credentialState(store, release, this.#options.oauth)) === 'ready';
  }

  async signInLost(key: string, reason: string): Promise<void> {
    const connector = this.#connectors.get(key);
    if (!connector) return;
    await this.#queue.run(key, () => connector.signInLost(reason));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#recorder.close();
    for (const connector of this.#connectors.values()) connector.callOffStaleStart(undefined);
    await this.#queue.idle();
    await Promise.all([...this.#retiring.keys()]);
    await Promise.all([...this.#connectors.values()].map((connector) => connector.close()));
  }

  /** One key of a reconcile: its sync, and what that changed. */
  async #reconcileOne(
    key: string,
    first: boolean,
    digestBefore: string | undefined,
  ): Promise<ReconcileOutcome> {
    const release = this.#options.store.get(key);
    const change = changeOf(release, digestBefore, first);
    const announcement = announcementOf(key, change, release);
    const sync = () => this.#sync(key, change === 'upgraded' ? 'upgraded' : 'started');
    const result = announcement ? await this.#recorder.announcing(key, sync) : await sync();
    if (announcement && result !== 'unchanged') this.#recorder.publish(announcement);
    const connector = this.#connectors.get(key);
    const skipped = connector ? await this.skippedSkills(key) : [];
    return {
      key,
      change,
      status: connector ? this.#statusOf(connector, true) : null,
      skipped,
    };
  }

  /**
   * Brings `key` in line with the store (its shim, then its upstream); a start it makes is
   * recorded as `kind` (what the reconcile found: an upgrade, else a start).
   */
  async #sync(
    key: string,
    kind: 'started' | 'upgraded' = 'started',
  ): Promise<SyncResult | undefined> {
    if (this.#closed) return undefined;
    const { store, logger } = this.#options;
    const release = store.get(key);
    const auth = release ? await credentialState(store, release, this.#options.oauth) : 'missing';
    await this.#shims
      .sync(key, release && auth === 'ready' ? release : undefined)
      .catch((error: unknown) => {
        logger.error({ connector: key, err: message(error) }, 'publishing the CLI shim failed');
      });
    const connector = this.#connectors.get(key);
    if (!connector) return undefined;
    const result = await connector.sync(release, auth, kind);
    if (result === 'removed') {
      this.#connectors.delete(key);
      this.#services.skills.forget(connector.digest);
    }
    return result;
  }

  /** A new connector of `key` (its redactor kept across reinstalls in this daemon's life). */
  #connector(key: string, release: NonNullable<ReturnType<ConnectorStore['get']>>): Connector {
    return new Connector(release, this.#redactors.of(key), this.#services);
  }

  redactSecrets(text: string): string {
    return this.#redactors.redact(text);
  }

  /** Removes the releases nothing uses any more (no connector, no rollback, no upstream). */
  async #collectReleases(): Promise<void> {
    const { store, logger } = this.#options;
    try {
      const removed = await store.pruneReleases(this.releasesInUse());
      if (removed.length > 0)
        logger.info({ removed }, 'removed releases no installed connector uses');
    } catch (error) {
      logger.warn({ err: message(error) }, 'removing unused releases failed');
    }
  }

  /** The status of `connector`, its installed release as the store has it. */
  #statusOf(connector: Connector, withStderr: boolean): ConnectorStatus {
    const { key } = connector;
    return statusOf(
      connector.entry,
      this.#shims.state(key),
      withStderr,
      this.#options.store.get(key),
    );
  }

  /** Every connector with its status (with its stderr lines: `withStderr`), sorted by key. */
  #sorted(withStderr = false) {
    return [...this.#connectors.values()].sort(byKey).map((connector) => ({
      entry: connector.entry,
      status: this.#statusOf(connector, withStderr),
    }));
  }
}

/** Creates the runtime; nothing starts until {@link ConnectorRuntime.reconcile}. */
export function createConnectorRuntime(options: ConnectorRuntimeOptions): ConnectorRuntime {
  return new Runtime(options);
}
