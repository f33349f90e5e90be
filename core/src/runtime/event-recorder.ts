/**
 * What the runtime records of its connectors, and its one way out to hosts: every
 * observation is kept (the last MAX_EVENTS), logged and handed to `onEvent`, then
 * published as its `connector.*` event, except the start of an install or an upgrade,
 * which is announced once, as the install or the upgrade; and each registry snapshot is
 * published as `tools.changed`.
 */
import type { TuttiEventBody } from '../events/index.js';
import type { ConnectorMCPRegistry } from '../registry/index.js';
import { connectorEventOf } from './connector-events.js';
import type { RuntimeEvent, RuntimeEventKind, RuntimeLogger } from './types.js';

const MAX_EVENTS = 500;

/** What the recorder needs: the runtime's options of the same names. */
export interface EventRecorderOptions {
  readonly registry: ConnectorMCPRegistry;
  readonly logger: RuntimeLogger;
  readonly onEvent?: ((event: RuntimeEvent) => void) | undefined;
  readonly events?: { publish(event: TuttiEventBody): void } | undefined;
}

/** The runtime's record of events and its publisher. */
export interface EventRecorder {
  /** Records what happened to `key` (and publishes it, unless it is announced otherwise). */
  record(key: string, kind: RuntimeEventKind, generation?: number, detail?: string): void;
  /** Publishes `event` to hosts. */
  publish(event: TuttiEventBody): void;
  /** Runs `work` with a start of `key` announced as its install or upgrade, not as a start. */
  announcing<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** The last recorded events, oldest first. */
  events(): readonly RuntimeEvent[];
  /** Stops publishing registry snapshots. */
  close(): void;
}

/** Creates the recorder; it publishes each registry snapshot from now on. */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const recorded: RuntimeEvent[] = [];
  /** Keys whose start is announced as their install or upgrade, not as a start. */
  const announced = new Set<string>();
  const publish = (event: TuttiEventBody): void => {
    options.events?.publish(event);
  };
  const { events } = options;
  const unsubscribe = events
    ? options.registry.onListChanged((snapshot) =>
        events.publish({
          type: 'tools.changed',
          version: snapshot.version,
          toolCount: snapshot.tools.length,
        }),
      )
    : undefined;
  return {
    record(key, kind, generation, detail) {
      const event: RuntimeEvent = {
        at: new Date().toISOString(),
        key,
        kind,
        ...(generation !== undefined && { generation }),
        ...(detail !== undefined && { detail }),
      };
      recorded.push(event);
      if (recorded.length > MAX_EVENTS) recorded.splice(0, recorded.length - MAX_EVENTS);
      options.logger.info({ connector: key, event: kind, generation, detail }, `connector ${kind}`);
      options.onEvent?.(event);
      // An install's or upgrade's start is announced once, as the install or the upgrade.
      const asInstall = announced.has(key) && (kind === 'started' || kind === 'upgraded');
      const published = asInstall ? undefined : connectorEventOf(event);
      if (published) publish(published);
    },
    publish,
    async announcing(key, work) {
      announced.add(key);
      try {
        return await work();
      } finally {
        announced.delete(key);
      }
    },
    events: () => recorded.slice(),
    close: () => unsubscribe?.(),
  };
}
