/**
 * A connector's live upstream: the catalog entry it publishes once ready, what the
 * connector does when it speaks (a changed tool list becomes a new generation, with the
 * instructions its server sent at start; its exit retires the route and schedules a
 * restart), and how a replaced one ends (its calls drained, then closed in the
 * background). The connector calls these on its queue, with an entry that still stands
 * for it.
 */
import type { UpstreamTool } from '../contracts/index.js';
import { isTuttiError } from '../errors/index.js';
import type { SecretRedactor } from '../process/index.js';
import type { UpstreamExitInfo } from '../upstream/index.js';
import type { ConnectorServices } from './connector-services.js';
import type { RetryCause } from './retry-schedule.js';
import type { RuntimeEntry } from './runtime-entry.js';

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Publishes the catalog entry of `entry` of `key` at `generation`. */
export function publishCatalogEntry(
  key: string,
  entry: RuntimeEntry,
  generation: number,
  services: Pick<ConnectorServices, 'catalog'>,
): void {
  const { connector } = entry;
  services.catalog.commit(key, generation, {
    name: connector.manifest.name,
    description: connector.manifest.description,
    ...(connector.paths.mcp && { mcp: { status: 'ready' as const } }),
    ...(connector.paths.cli && { cli: { status: 'ready' as const } }),
    skills: entry.skills,
  });
}

/** The upstream's list changed: a new generation when the visible list did. */
export async function relistTools(
  key: string,
  entry: RuntimeEntry,
  tools: UpstreamTool[],
  services: ConnectorServices,
  redactor: SecretRedactor,
): Promise<void> {
  if (entry.state !== 'ready' || !entry.client) return;
  // list_changed with the very same list: nothing to publish, no new generation.
  const listed = JSON.stringify(tools);
  if (listed === entry.listed) return;
  const generation = await services.store.nextRevision(key);
  try {
    // The same connection: its instructions (sent once, at initialize) go with the new generation.
    entry.toolCount = services.registry.commit(
      key,
      generation,
      entry.client,
      tools,
      entry.connection?.instructions,
    ).localNames.length;
  } catch (error) {
    entry.lastError = redactor.redact(message(error));
    entry.lastErrorCode = isTuttiError(error) ? error.code : undefined;
    services.record(key, 'start-failed', generation, entry.lastError);
    return;
  }
  entry.listed = listed;
  entry.generation = generation;
  entry.attempted = generation;
  entry.revision = generation;
  publishCatalogEntry(key, entry, generation, services);
  services.record(key, 'tools-changed', generation, `${tools.length} tools`);
}

/**
 * The upstream ended (not closed by its connector): the route is retired and a restart
 * scheduled through `scheduleRetry`, at once after a healthy run.
 */
export function upstreamEnded(
  key: string,
  entry: RuntimeEntry,
  info: UpstreamExitInfo,
  services: ConnectorServices,
  scheduleRetry: (cause: RetryCause) => number,
): void {
  if (entry.closing) return;
  services.counters?.crash(key);
  if (entry.generation !== undefined) services.registry.remove(key, entry.generation);
  entry.toolCount = 0;
  entry.state = 'restarting';
  entry.connection = undefined;
  entry.client = undefined;
  entry.lastError = `upstream ${info.reason}`;
  entry.lastErrorCode = undefined;
  const healthy =
    entry.startedAt !== undefined && services.now() - entry.startedAt >= services.stableMs;
  const delay = scheduleRetry({ afterHealthyRun: healthy });
  services.record(key, 'crashed', entry.generation, `${info.reason}; restart in ${delay} ms`);
}

/** Closes the upstream of `entry` once its calls drained (at most `drainMs`). */
export async function closeUpstream(entry: RuntimeEntry, drainMs: number): Promise<void> {
  entry.closing = true;
  await entry.client?.drained(drainMs);
  await entry.connection?.close();
}

/** Closes a replaced upstream of `key` after its calls drained, without holding up its key. */
export function retireInBackground(
  key: string,
  entry: RuntimeEntry,
  services: ConnectorServices,
): void {
  const closing = closeUpstream(entry, services.drainMs).catch((error: unknown) => {
    services.logger.warn({ connector: key, err: message(error) }, 'closing an old upstream failed');
  });
  services.retiring(closing, entry.connector.digest);
}
