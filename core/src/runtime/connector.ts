/**
 * One installed connector in the runtime: the release it runs or waits to run, its live
 * upstream and what went wrong last, and the methods that move it: `sync` (with the store),
 * `start`, `relist` (the upstream's list_changed), `crashed`, `retire`, `hold` (nothing can
 * run: no credential, or one it cannot read), `retry`. Every method runs on the runtime's
 * queue for this key, one at a time. An upgrade starts the new release beside the one
 * serving, which keeps serving until the new one listed its tools, then drains and closes
 * in the background. A release that never started does not replace the last one that ran:
 * that one serves (after a restart too) while the new one is pending and retried. When a
 * failed one starts again, or parks, is in retry-schedule.ts; what a relist and a crash
 * of its upstream do, in live-upstream.ts.
 */
import type { UpstreamTool } from '../contracts/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import type { SecretRedactor } from '../process/index.js';
import type { InstalledConnector } from '../store/index.js';
import type { UpstreamConnection, UpstreamExitInfo } from '../upstream/index.js';
import type { ConnectorServices } from './connector-services.js';
import {
  closeUpstream,
  publishCatalogEntry,
  relistTools,
  retireInBackground,
  upstreamEnded,
} from './live-upstream.js';
import { credentialState } from './release-facts.js';
import { clearFailures, type RetryCause, scheduleRetry } from './retry-schedule.js';
import { heldEntry, placeholderEntry, type RuntimeEntry, startingEntry } from './runtime-entry.js';
import { signInTarget } from './sign-in-target.js';
import { trackClient } from './tracked-client.js';
import { keyedLogger, type RuntimeEventKind } from './types.js';

/** The sign-in error behind a failed start (itself or its cause), if that is why it failed. */
function signInRequired(error: unknown): TuttiError | undefined {
  for (let at: unknown = error, depth = 0; at && depth < 4; depth++) {
    if (isTuttiError(at, 'TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED')) return at;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What a sync did. */
export type SyncResult = 'started' | 'failed' | 'held' | 'unchanged' | 'removed';

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One connector of the runtime; see the module doc. */
export class Connector {
  readonly key: string;
  /** The entry that stands for this connector now (serving, starting, held or failed). */
  #entry: RuntimeEntry;
  /** The start running, with the store revision it is for. */
  #start: { controller: AbortController; revision: number } | undefined;
  /** Every secret its upstreams were given in this daemon's life: masked in their output. */
  readonly #redactor: SecretRedactor;
  readonly #services: ConnectorServices;
  #removed = false;
  /** A start of it succeeded in this daemon's life (a remote server that ran never parks). */
  #ran = false;

  constructor(release: InstalledConnector, redactor: SecretRedactor, services: ConnectorServices) {
    this.key = release.key;
    this.#entry = placeholderEntry(release);
    this.#redactor = redactor;
    this.#services = services;
  }

  /** The entry as the status and summaries read it. */
  get entry(): RuntimeEntry {
    return this.#entry;
  }

  /** Calls off a start still running for an older revision than the store's `revision`. */
  callOffStaleStart(revision: number | undefined): void {
    if (this.#start && (revision === undefined || revision > this.#start.revision)) {
      this.#start.controller.abort();
    }
  }

  /**
   * Brings the connector in line with `release` (undefined: uninstalled) and `auth`, its
   * credential's state: removed, held while nothing can run, started when the store moved
   * past what it last attempted.
   */
  async sync(
    release: InstalledConnector | undefined,
    auth: 'ready' | 'missing' | TuttiError,
    kind: 'started' | 'upgraded' = 'started',
  ): Promise<SyncResult> {
    if (this.#services.closed()) return 'unchanged';
    const entry = this.#entry;
    if (!release) {
      await this.retire('uninstalled');
      this.#removed = true;
      return 'removed';
    }
    if (auth !== 'ready') {
      await this.#hold(release, auth === 'missing' ? undefined : auth);
      return 'held';
    }
    if (!entry.waiting && entry.attempted >= release.revision) return 'unchanged';
    // A change (a new release or credential) starts the count of failures afresh.
    clearFailures(entry);
    return this.#run(release, entry.waiting ? undefined : entry, release.revision, kind);
  }

  /**
   * Starts the installed release again now, whatever the failures before (a parked
   * connector included): what `POST /v1/connectors/{key}/retry` does.
   */
  async retry(): Promise<SyncResult> {
    const { store } = this.#services;
    const release = store.get(this.key);
    if (!release || this.#services.closed()) return 'unchanged';
    const entry = this.#entry;
    if (entry.waiting) return 'unchanged';
    if (entry.state === 'ready' && !entry.pending) return 'unchanged';
    clearTimeout(entry.timer);
    clearFailures(entry);
    const generation = await store.nextRevision(this.key);
    return this.#run(store.get(this.key) ?? release, entry, generation, 'restarted');
  }

  /** Fences and removes its route and catalog entry, then closes its upstream. */
  async retire(reason: string): Promise<void> {
    const entry = this.#entry;
    clearTimeout(entry.timer);
    const { registry, catalog } = this.#services;
    if (entry.generation !== undefined) {
      registry.remove(this.key, entry.generation);
      catalog.remove(this.key, entry.generation);
    }
    this.#services.record(this.key, 'removed', entry.generation, reason);
    await closeUpstream(entry, this.#services.drainMs).catch(() => undefined);
  }

  /** Stops its timers and its upstream (the daemon is going away). */
  async close(): Promise<void> {
    this.#start?.controller.abort();
    clearTimeout(this.#entry.timer);
    this.#entry.closing = true;
    await this.#entry.connection?.close().catch(() => undefined);
  }

  /**
   * Its sign-in was lost while it ran (the grant revoked or expired at the authorization
   * server, a refresh refused): its route goes (one list_changed) and it waits in
   * `needs-auth` for a new sign-in.
   */
  async signInLost(reason: string): Promise<void> {
    const release = this.#services.store.get(this.key);
    if (!release || this.#removed || this.#services.closed()) return;
    const entry = this.#entry;
    if (entry.waiting && entry.state === 'needs-auth') return;
    await this.#needsSignIn(
      release,
      new TuttiError('TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED', { key: this.key, reason }),
    );
  }

  /** Digest of the release something of this connector runs from. */
  get digest(): string {
    return this.#entry.connector.digest;
  }

  /**
   * Holds the connector with nothing running: `needs-auth` without a credential, `failed`
   * with one it cannot read (`problem`, logged once per revision and reason).
   */
  async #hold(release: InstalledConnector, problem: TuttiError | undefined): Promise<void> {
    const entry = this.#entry;
    const state = problem ? 'failed' : 'needs-auth';
    if (
      entry.waiting &&
      entry.state === state &&
      entry.attempted >= release.revision &&
      entry.lastError === problem?.message
    ) {
      return;
    }
    if (!entry.waiting) await this.retire('authorization lost');
    const found = await this.#services.skills.of(release).catch(() => undefined);
    this.#entry = heldEntry(release, state, found, entry.restarts, problem);
    if (problem)
      this.#services.logger.warn({ connector: this.key, code: problem.code }, problem.message);
  }

  /**
   * Holds the connector in `needs-auth` until a sign-in: what served is retired, and the
   * wait is recorded once (`needs-sign-in`) with `problem`'s fixed reason.
   */
  async #needsSignIn(release: InstalledConnector, problem: TuttiError): Promise<void> {
    const entry = this.#entry;
    clearTimeout(entry.timer);
    if (!entry.waiting) await this.retire('sign-in required');
    const found = await this.#services.skills.of(release).catch(() => undefined);
    this.#entry = heldEntry(release, 'needs-auth', found, entry.restarts, problem);
    this.#services.record(this.key, 'needs-sign-in', undefined, problem.message);
  }

  /** Starts `release` as generation `generation`; `previous` keeps serving until it is ready. */
  async #run(
    release: InstalledConnector,
    previous: RuntimeEntry | undefined,
    generation: number,
    kind: RuntimeEventKind,
    fallback = false,
  ): Promise<SyncResult> {
    const services = this.#services;
    const { key } = this;
    const entry = startingEntry(release, generation, previous, this.#redactor);
    const keepPrevious = previous?.state === 'ready';
    if (!keepPrevious) this.#entry = entry;
    let connection: UpstreamConnection | undefined;
    const controller = new AbortController();
    this.#start = { controller, revision: generation };
    try {
      // Skills first: they are there (and shown) even when the MCP server fails to start.
      const found = await services.skills.of(release);
      entry.skills = found.skills;
      if (found.root && found.skills.length > 0) entry.skillRoot = found.root;
      const credential = await services.store.credential(key);
      this.#redactor.add(credential?.secret.reveal());
      const mcp = release.paths.mcp;
      if (mcp?.transport === 'stdio') this.#redactor.addEnv(mcp.env);
      const signIn = services.oauth && signInTarget(release, credential);
      if (mcp) {
        connection = await services.launch(release, credential, {
          ...(signIn && services.oauth && { auth: services.oauth.transportAuth(signIn) }),
          ...(services.sandbox && { sandbox: services.sandbox }),
          supervisor: services.supervisor,
          startTimeoutMs: services.startTimeoutMs,
          signal: controller.signal,
          onStderr: (read) => {
            entry.stderr = read;
          },
          logger: keyedLogger(services.logger, key),
          onToolsChanged: (tools) => services.enqueue(key, () => this.#relist(entry, tools)),
          onExit: (info) => services.enqueue(key, () => this.#crashed(entry, info)),
        });
        entry.connection = connection;
        entry.client = trackClient(key, connection, services.counters);
      }
      if (entry.client && connection) {
        entry.toolCount = services.registry.commit(
          key,
          generation,
          entry.client,
          connection.tools,
          connection.instructions,
        ).localNames.length;
        entry.listed = JSON.stringify(connection.tools);
      } else {
        services.registry.remove(key, generation);
      }
      entry.generation = generation;
      entry.state = 'ready';
      entry.failedStarts = 0;
      entry.startedAt = services.now();
      this.#entry = entry;
      this.#ran = true;
      publishCatalogEntry(key, entry, generation, services);
      if (kind === 'restarted') {
        entry.restarts++;
        services.counters?.restart(key);
      }
      services.record(key, kind, generation);
      // This release ran: the one a later upgrade can roll back to (kept by the GC).
      await services.store.markGood(key, release.digest).catch((error: unknown) => {
        services.logger.warn(
          { connector: key, err: message(error) },
          'recording a good release failed',
        );
      });
    } catch (error) {
      await connection?.close().catch(() => undefined);
      // Called off: what replaced this start (queued behind it) decides what runs.
      if (controller.signal.aborted) return 'unchanged';
      const signIn = signInRequired(error);
      if (signIn) {
        // Not a failure: nothing runs until the person signs in (no retry, no fallback).
        await this.#needsSignIn(release, signIn);
        return 'held';
      }
      const detail = this.#redactor.redact(message(error));
      const failed = keepPrevious && previous ? previous : entry;
      failed.attempted = generation;
      failed.lastError = detail;
      // What the failed server wrote explains `lastError`, also beside an older one serving.
      if (entry.stderr) failed.stderr = entry.stderr;
      failed.lastErrorCode = isTuttiError(error) ? error.code : undefined;
      if (!keepPrevious) entry.state = 'failed';
      services.record(key, 'start-failed', generation, detail);
      const installed = services.store.get(key);
      if (keepPrevious && installed?.digest === release.digest) {
        failed.pending = { release, reason: detail };
      }
      // No release starts where isolation is required and does not work: no fallback, no retry.
      if (isTuttiError(error, 'TUTTI_ERR_SANDBOX_UNAVAILABLE')) return 'failed';
      // Nothing serves: the last release that ran serves while this one is pending.
      if (!keepPrevious && !fallback && (await this.#fallBack(release, entry, detail))) {
        return 'failed';
      }
      // A refused credential stays refused: wait for a new one (a new revision) instead.
      if (!isTuttiError(error, 'TUTTI_ERR_UPSTREAM_UNAUTHORIZED')) {
        this.#scheduleRetry(failed, { startFailed: true });
      }
      return 'failed';
    } finally {
      if (this.#start?.controller === controller) this.#start = undefined;
    }
    if (previous && previous !== entry) {
      clearTimeout(previous.timer);
      if (previous.connection) retireInBackground(key, previous, services);
    }
    return 'started';
  }

  /**
   * Starts the last good release of this connector after `release` failed with nothing
   * serving; true when it serves. The failed one is then pending on it, and retried.
   */
  async #fallBack(
    release: InstalledConnector,
    failed: RuntimeEntry,
    reason: string,
  ): Promise<boolean> {
    const { store } = this.#services;
    const good = await store.lastGood(this.key);
    if (!good || good.digest === release.digest || this.#services.closed()) return false;
    const generation = await store.nextRevision(this.key);
    const ran = await this.#run(good, undefined, generation, 'started', true);
    const serving = this.#entry;
    if (ran !== 'started' || serving.state !== 'ready') return false;
    serving.pending = { release, reason };
    serving.failures = failed.failures;
    serving.failedStarts = failed.failedStarts;
    // What the store holds now was attempted: a sync does not start it again on its own.
    serving.attempted = store.revision(this.key);
    this.#services.record(
      this.key,
      'fell-back',
      generation,
      `release ${good.manifest.version} serves while ${release.manifest.version} does not start`,
    );
    this.#scheduleRetry(serving, { startFailed: true });
    return true;
  }

  /** The upstream's list changed (live-upstream.ts), while `entry` stands for it. */
  async #relist(entry: RuntimeEntry, tools: UpstreamTool[]): Promise<void> {
    if (this.#stale(entry)) return;
    await relistTools(this.key, entry, tools, this.#services, this.#redactor);
  }

  /** Its upstream ended (live-upstream.ts), while `entry` stands for it. */
  async #crashed(entry: RuntimeEntry, info: UpstreamExitInfo): Promise<void> {
    if (this.#stale(entry)) return;
    upstreamEnded(this.key, entry, info, this.#services, (cause) =>
      this.#scheduleRetry(entry, cause),
    );
  }

  /** Schedules the next start of `entry`, or parks it (retry-schedule.ts); -1 when parked. */
  #scheduleRetry(entry: RuntimeEntry, cause?: RetryCause): number {
    const target = { key: this.key, ran: this.#ran, retry: () => this.#retry(entry) };
    return scheduleRetry(entry, target, this.#services, cause);
  }

  async #retry(entry: RuntimeEntry): Promise<void> {
    if (this.#stale(entry)) return;
    const { store } = this.#services;
    const release = store.get(this.key);
    // Gone or unauthorized meanwhile: a sync puts it in line with the store.
    const auth = release && (await credentialState(store, release, this.#services.oauth));
    if (!release || auth !== 'ready') return this.#services.syncNow(this.key);
    const generation = await store.nextRevision(this.key);
    await this.#run(store.get(this.key) ?? release, entry, generation, 'restarted');
  }

  /** True when `entry` no longer stands for this connector, or the runtime closes. */
  #stale(entry: RuntimeEntry): boolean {
    return this.#services.closed() || this.#removed || this.#entry !== entry;
  }
}
