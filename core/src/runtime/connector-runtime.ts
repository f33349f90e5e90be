/**
 * Reconcile (spec 6.2): keeps the registry, the catalog and the CLI shims equal to
 * what is installed and authorized. Installed + auth ready -> start, list, commit, notify;
 * upgrade -> the new release is fully listed before the swap and the old closes after its
 * calls drained; uninstall or auth loss -> fence, remove, notify, close. A crashed upstream
 * retires its route and restarts with backoff. Connectors run in parallel, each key's
 * changes one at a time.
 */
import type { UpstreamTool } from '../contracts/index.js';
import { isTuttiError, type TuttiError } from '../errors/index.js';
import {
  type ProcessSupervisor,
  createSecretRedactor,
  type SecretRedactor,
} from '../process/index.js';
import type { ConnectorMCPRegistry } from '../registry/index.js';
import type { ConnectorSummary, ConnectorCatalog } from '../catalog/index.js';
import { listShimKeys } from '../shims/index.js';
import type { ConnectorStore, InstalledConnector } from '../store/index.js';
import type { UpstreamConnection, UpstreamExitInfo } from '../upstream/index.js';
import { type BackoffOptions, DEFAULT_BACKOFF, backoffDelay } from './backoff.js';
import { createKeyQueue } from './key-queue.js';
import { launchUpstream, type UpstreamLauncher } from './launch-upstream.js';
import { statusOf, summariesOf } from './connector-status.js';
import { heldEntry, placeholderEntry, type RuntimeEntry } from './runtime-entry.js';
import { type CallCounters, trackClient } from './tracked-client.js';
import { createSkillCache, credentialState } from './release-facts.js';
import { createShimSync } from './shim-sync.js';
import {
  type ConnectorStatus,
  keyedLogger,
  type RuntimeEvent,
  type RuntimeEventKind,
  type RuntimeLogger,
} from './types.js';

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
  counters?: CallCounters & { restart(key: string): void; crash(key: string): void };
  onEvent?: (event: RuntimeEvent) => void;
}

/** The running connector runtime. */
export interface ConnectorRuntime {
  /**
   * Brings `keys` (default: every connector) in line with the store; resolves when each
   * of them has settled. A start still running for an older revision of one of them (a
   * replaced release or credential, an uninstall) is called off first, so a slow
   * upstream holds up only the change that replaces it, and nothing of other keys.
   */
  reconcile(keys?: readonly string[]): Promise<void>;
  /**
   * Digests of the releases something runs from now: an entry's release (serving,
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
  /** The last recorded events, oldest first. */
  events(): readonly RuntimeEvent[];
  /** Stops every upstream (the registry is left as it is: the daemon is going away). */
  close(): Promise<void>;
}

type Active = RuntimeEntry;

const MAX_EVENTS = 500;

/** How long a run must last after ready to count as healthy (10 s). */
export const DEFAULT_STABLE_MS = 10_000;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Creates the runtime; nothing starts until {@link ConnectorRuntime.reconcile}. */
export function createConnectorRuntime(options: ConnectorRuntimeOptions): ConnectorRuntime {
  const { store, registry, catalog, binDir, logger } = options;
  const launch = options.launch ?? launchUpstream;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const stableMs = options.stableMs ?? DEFAULT_STABLE_MS;
  const now = options.now ?? Date.now;
  const drainMs = options.drainMs ?? 30_000;
  const queue = createKeyQueue();
  const actives = new Map<string, Active>();
  const shims = createShimSync(binDir, store);
  /**
   * Per key, every secret its upstream was given in this daemon's life (credentials,
   * secret-looking env values): masked in its stderr lines and errors.
   */
  const redactors = new Map<string, SecretRedactor>();
  const redactorOf = (key: string): SecretRedactor => {
    const known = redactors.get(key);
    if (known) return known;
    const redactor = createSecretRedactor();
    redactors.set(key, redactor);
    return redactor;
  };
  const releaseSkills = createSkillCache(logger);
  let swept = false;
  const recorded: RuntimeEvent[] = [];
  let closed = false;
  /** The upstream start running per key, with the revision it is for. */
  const starts = new Map<string, { controller: AbortController; revision: number }>();

  /** Calls off `key`'s running start when the store moved past its revision. */
  function callOffStaleStart(key: string): void {
    const running = starts.get(key);
    if (!running) return;
    const connector = store.get(key);
    if (!connector || connector.revision > running.revision) running.controller.abort();
  }

  function record(key: string, kind: RuntimeEventKind, generation?: number, detail?: string) {
    const event: RuntimeEvent = {
      at: new Date().toISOString(),
      key,
      kind,
      ...(generation !== undefined && { generation }),
      ...(detail !== undefined && { detail }),
    };
    recorded.push(event);
    if (recorded.length > MAX_EVENTS) recorded.splice(0, recorded.length - MAX_EVENTS);
    logger.info({ connector: key, event: kind, generation, detail }, `connector ${kind}`);
    options.onEvent?.(event);
  }

  /** Upstreams being retired: drained and closed in the background, awaited by close(). */
  const retiring = new Map<Promise<void>, string>();

  async function closeConnection(entry: Active): Promise<void> {
    entry.closing = true;
    await entry.client?.drained(drainMs);
    await entry.connection?.close();
  }

  /** Closes a replaced upstream after its calls drained, without holding up its key. */
  function retireInBackground(entry: Active): void {
    const closing = closeConnection(entry).catch((error: unknown) => {
      logger.warn({ connector: entry.key, err: message(error) }, 'closing an old upstream failed');
    });
    retiring.set(closing, entry.connector.digest);
    void closing.then(() => retiring.delete(closing));
  }

  /** Publishes the catalog entry of `entry` at `generation`. */
  function publish(entry: Active, generation: number) {
    const { key, connector } = entry;
    const ready = 'ready' as const;
    catalog.commit(key, generation, {
      name: connector.manifest.name,
      description: connector.manifest.description,
      ...(connector.paths.mcp && { mcp: { status: ready } }),
      ...(connector.paths.cli && { cli: { status: ready } }),
      skills: entry.skills,
    });
  }

  /**
   * Holds `connector` with nothing running: `needs-auth` without a credential, `failed`
   * with one it cannot read (`problem`, logged once per revision and reason).
   */
  async function hold(
    connector: InstalledConnector,
    active: Active | undefined,
    problem: TuttiError | undefined,
  ): Promise<void> {
    const { key } = connector;
    const state = problem ? 'failed' : 'needs-auth';
    if (
      active?.waiting &&
      active.state === state &&
      active.attempted >= connector.revision &&
      active.lastError === problem?.message
    ) {
      return;
    }
    if (active && !active.waiting) await retire(active, 'authorization lost');
    const found = await releaseSkills.of(connector).catch(() => undefined);
    actives.set(key, heldEntry(connector, state, found, active?.restarts ?? 0, problem));
    if (problem) logger.warn({ connector: key, code: problem.code }, problem.message);
  }

  /** Schedules the next start of `entry`: at once after a healthy run, else backed off. */
  function scheduleRetry(entry: Active, afterHealthyRun = false): number {
    if (closed) return 0;
    if (afterHealthyRun) entry.failures = 0;
    else entry.failures++;
    const delay = afterHealthyRun ? 0 : backoffDelay(entry.failures, backoff);
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      void queue.run(entry.key, () => retry(entry));
    }, delay);
    entry.timer.unref();
    return delay;
  }

  async function retry(entry: Active) {
    if (closed || actives.get(entry.key) !== entry) return;
    const connector = store.get(entry.key);
    if (!connector || !(await store.authReady(entry.key))) return sync(entry.key);
    const generation = await store.nextRevision(entry.key);
    await start(store.get(entry.key) ?? connector, entry, generation, 'restarted');
  }

  async function start(
    connector: InstalledConnector,
    previous: Active | undefined,
    generation: number,
    kind: RuntimeEventKind,
  ): Promise<void> {
    const { key } = connector;
    const entry: Active = {
      key,
      connector,
      state: 'starting',
      waiting: false,
      attempted: generation,
      revision: generation,
      skills: [],
      toolCount: 0,
      failures: previous?.failures ?? 0,
      restarts: previous?.restarts ?? 0,
      closing: false,
    };
    const keepPrevious = previous?.state === 'ready';
    if (!keepPrevious) actives.set(key, entry);
    let connection: UpstreamConnection | undefined;
    const controller = new AbortController();
    starts.set(key, { controller, revision: generation });
    const redactor = redactorOf(key);
    entry.redactor = redactor;
    try {
      // Skills first: they are there (and shown) even when the MCP server fails to start.
      const found = await releaseSkills.of(connector);
      entry.skills = found.skills;
      if (found.root && found.skills.length > 0) entry.skillRoot = found.root;
      const credential = await store.credential(key);
      redactor.add(credential?.secret.reveal());
      const mcp = connector.paths.mcp;
      if (mcp?.transport === 'stdio') redactor.addEnv(mcp.env);
      if (mcp) {
        connection = await launch(connector, credential, {
          supervisor: options.supervisor,
          startTimeoutMs: options.startTimeoutMs,
          signal: controller.signal,
          onStderr: (read) => {
            entry.stderr = read;
          },
          logger: keyedLogger(logger, key),
          onToolsChanged: (tools) => void queue.run(key, () => relist(entry, tools)),
          onExit: (info) => void queue.run(key, () => crashed(entry, info)),
        });
        entry.connection = connection;
        entry.client = trackClient(key, connection, options.counters);
      }
      if (entry.client && connection) {
        entry.toolCount = registry.commit(
          key,
          generation,
          entry.client,
          connection.tools,
        ).localNames.length;
        entry.listed = JSON.stringify(connection.tools);
      } else {
        registry.remove(key, generation);
      }
      entry.generation = generation;
      entry.state = 'ready';
      entry.startedAt = now();
      actives.set(key, entry);
      publish(entry, generation);
      if (kind === 'restarted') {
        entry.restarts++;
        options.counters?.restart(key);
      }
      record(key, previous && kind === 'started' ? 'upgraded' : kind, generation);
      // This release ran: the one a later upgrade can roll back to (kept by the GC).
      await store.markGood(key, connector.digest).catch((error: unknown) => {
        logger.warn({ connector: key, err: message(error) }, 'recording a good release failed');
      });
    } catch (error) {
      await connection?.close().catch(() => undefined);
      // Called off: what replaced this start (queued behind it) decides what runs.
      if (controller.signal.aborted) return;
      const detail = redactor.redact(message(error));
      const failed = keepPrevious && previous ? previous : entry;
      failed.attempted = generation;
      failed.lastError = detail;
      // What the failed server wrote explains `lastError`, also beside an older one serving.
      if (entry.stderr) failed.stderr = entry.stderr;
      failed.lastErrorCode = isTuttiError(error) ? error.code : undefined;
      if (!keepPrevious) entry.state = 'failed';
      record(key, 'start-failed', generation, detail);
      // A refused credential stays refused: wait for a new one (a new revision) instead.
      if (!isTuttiError(error, 'TUTTI_ERR_UPSTREAM_UNAUTHORIZED')) scheduleRetry(failed);
      return;
    } finally {
      if (starts.get(key)?.controller === controller) starts.delete(key);
    }
    if (previous && previous !== entry) {
      clearTimeout(previous.timer);
      if (previous.connection) retireInBackground(previous);
    }
  }

  async function relist(entry: Active, tools: UpstreamTool[]) {
    if (closed || actives.get(entry.key) !== entry || entry.state !== 'ready' || !entry.client) {
      return;
    }
    // list_changed with the very same list: nothing to publish, no new generation.
    const listed = JSON.stringify(tools);
    if (listed === entry.listed) return;
    const generation = await store.nextRevision(entry.key);
    try {
      entry.toolCount = registry.commit(
        entry.key,
        generation,
        entry.client,
        tools,
      ).localNames.length;
    } catch (error) {
      entry.lastError = redactorOf(entry.key).redact(message(error));
      entry.lastErrorCode = isTuttiError(error) ? error.code : undefined;
      record(entry.key, 'start-failed', generation, entry.lastError);
      return;
    }
    entry.listed = listed;
    entry.generation = generation;
    entry.attempted = generation;
    entry.revision = generation;
    publish(entry, generation);
    record(entry.key, 'tools-changed', generation, `${tools.length} tools`);
  }

  async function crashed(entry: Active, info: UpstreamExitInfo) {
    if (closed || entry.closing || actives.get(entry.key) !== entry) return;
    options.counters?.crash(entry.key);
    if (entry.generation !== undefined) registry.remove(entry.key, entry.generation);
    entry.toolCount = 0;
    entry.state = 'restarting';
    entry.connection = undefined;
    entry.client = undefined;
    entry.lastError = `upstream ${info.reason}`;
    entry.lastErrorCode = undefined;
    const healthy = entry.startedAt !== undefined && now() - entry.startedAt >= stableMs;
    const delay = scheduleRetry(entry, healthy);
    record(entry.key, 'crashed', entry.generation, `${info.reason}; restart in ${delay} ms`);
  }

  async function retire(entry: Active, reason: string) {
    clearTimeout(entry.timer);
    actives.delete(entry.key);
    if (entry.generation !== undefined) {
      registry.remove(entry.key, entry.generation);
      catalog.remove(entry.key, entry.generation);
    }
    record(entry.key, 'removed', entry.generation, reason);
    await closeConnection(entry).catch(() => undefined);
  }

  async function sync(key: string): Promise<void> {
    if (closed) return;
    const connector = store.get(key);
    const auth = connector ? await credentialState(store, connector) : 'missing';
    const active = actives.get(key);
    await shims
      .sync(key, connector && auth === 'ready' ? connector : undefined)
      .catch((error: unknown) => {
        logger.error({ connector: key, err: message(error) }, 'publishing the CLI shim failed');
      });
    if (!connector) {
      if (active) {
        await retire(active, 'uninstalled');
        releaseSkills.forget(active.connector.digest);
      }
      return;
    }
    if (auth !== 'ready') return hold(connector, active, auth === 'missing' ? undefined : auth);
    if (active && !active.waiting && active.attempted >= connector.revision) return;
    await start(connector, active?.waiting ? undefined : active, connector.revision, 'started');
  }

  /** Every entry with its status (with its stderr lines: `withStderr`), sorted by key. */
  function sorted(withStderr = false): { entry: Active; status: ConnectorStatus }[] {
    return [...actives.values()]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((entry) => ({ entry, status: statusOf(entry, shims.state(entry.key), withStderr) }));
  }

  return {
    async reconcile(only?: readonly string[]) {
      const keys = new Set(only ?? [...store.installed().map((c) => c.key), ...actives.keys()]);
      // Listed as starting from now on, not only once its first sync gets to it.
      for (const key of keys) {
        const connector = store.get(key);
        if (connector && !actives.has(key)) actives.set(key, placeholderEntry(connector));
      }
      // Shims left by an earlier daemon (of connectors gone since) are removed too.
      if (!swept && !only) {
        swept = true;
        for (const key of await listShimKeys(binDir)) keys.add(key);
      }
      for (const key of keys) callOffStaleStart(key);
      await Promise.all([...keys].map((key) => queue.run(key, () => sync(key))));
    },
    releasesInUse() {
      const digests = new Set(retiring.values());
      for (const entry of actives.values()) digests.add(entry.connector.digest);
      return digests;
    },
    status() {
      return sorted(true).map(({ status }) => status);
    },
    available() {
      return summariesOf(sorted(), catalog);
    },
    events: () => recorded.slice(),
    async close() {
      closed = true;
      for (const { controller } of starts.values()) controller.abort();
      for (const entry of actives.values()) clearTimeout(entry.timer);
      await queue.idle();
      await Promise.all([...retiring.keys()]);
      await Promise.all(
        [...actives.values()].map(async (entry) => {
          entry.closing = true;
          await entry.connection?.close().catch(() => undefined);
        }),
      );
    },
  };
}
