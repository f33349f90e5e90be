/**
 * What happens in the daemon, as a stream for hosts (`GET /v1/events`): connectors
 * installed, upgraded, removed or failing, tool lists changing, agent sessions starting,
 * refreshing, needing a reconnect or restart, and ending. Events hold no secret and no
 * upstream output. Each subscriber has a bounded queue: a reader that falls that far
 * behind is dropped with a reason, so a slow reader never slows the daemon.
 */

/** What a host should do for a session after a tools change. */
export type RefreshAction =
  /** Nothing: the agent re-lists by itself (list_changed) or the daemon already did it. */
  | 'none'
  /** Send the agent the session's new params (`GET /v1/sessions/{id}/projection`). */
  | 'reload'
  /** Reconnect the agent's MCP servers before its next turn. */
  | 'reconnect-before-turn'
  /** Resume or restart the agent's session. */
  | 'resume';

/** The events, by type. */
export type TuttiEventBody =
  | { type: 'connector.installed'; key: string; version: string; revision: number }
  | { type: 'connector.upgraded'; key: string; version: string; revision: number }
  | { type: 'connector.removed'; key: string }
  | { type: 'connector.started'; key: string; generation?: number }
  | { type: 'connector.restarted'; key: string; generation?: number }
  | { type: 'connector.failed'; key: string; status: string; advice: string }
  /** Its remote server wants a sign-in (none yet, or the last one was lost): its tools are gone. */
  | { type: 'connector.needs-auth'; key: string; advice: string }
  /** A sign-in to its remote server succeeded (a `connector.started` follows when it runs). */
  | { type: 'connector.signed-in'; key: string }
  | { type: 'tools.changed'; version: number; toolCount: number }
  | { type: 'session.started'; session: string; provider: string; connector: string }
  | {
      type: 'session.refreshed';
      session: string;
      provider: string;
      version: number;
      strategy: string;
      /** What the host that drives the agent does now. */
      action: RefreshAction;
    }
  | { type: 'session.needs-restart'; session: string; provider: string; reason: string }
  | { type: 'sessions.restored'; resumed: number; needsRestart: number }
  | { type: 'session.ended'; session: string; provider: string; reason: string };

/** One event as published: its body, a sequence number and a time. */
export type TuttiEvent = TuttiEventBody & { readonly id: number; readonly at: string };

/** Where a subscriber's events go; `end` is called once when it is dropped or unsubscribed. */
export interface EventSink {
  /** Takes one event; false when the reader cannot take more now (it is queued). */
  write(event: TuttiEvent): boolean;
  /** Asks to be told when the reader can take more. */
  onDrain(listener: () => void): void;
  end(reason?: string): void;
}

/** Options of {@link createEventHub}. */
export interface EventHubOptions {
  /** Events queued per subscriber before it is dropped (default 1,000). */
  readonly maxQueued?: number;
  /** Recent events kept for `recent()` (default 200). */
  readonly keep?: number;
}

/** Publishes events to subscribers. */
export interface EventHub {
  publish(event: TuttiEventBody): void;
  /** Adds a subscriber; returns the unsubscribe function. */
  subscribe(sink: EventSink): () => void;
  /** The last events, oldest first. */
  recent(): readonly TuttiEvent[];
  /** Ends every subscriber. */
  close(): void;
}

/** Creates a hub. */
export function createEventHub(options: EventHubOptions = {}): EventHub {
  const maxQueued = options.maxQueued ?? 1_000;
  const keep = options.keep ?? 200;
  const recent: TuttiEvent[] = [];
  const subscribers = new Set<{ sink: EventSink; queue: TuttiEvent[]; waiting: boolean }>();
  let sequence = 0;

  const drop = (subscriber: { sink: EventSink }, reason?: string) => {
    for (const entry of subscribers) {
      if (entry.sink === subscriber.sink) subscribers.delete(entry);
    }
    subscriber.sink.end(reason);
  };

  const flush = (subscriber: { sink: EventSink; queue: TuttiEvent[]; waiting: boolean }) => {
    subscriber.waiting = false;
    while (subscriber.queue.length > 0) {
      const next = subscriber.queue.shift()!;
      if (!subscriber.sink.write(next)) {
        subscriber.waiting = true;
        subscriber.sink.onDrain(() => flush(subscriber));
        return;
      }
    }
  };

  return {
    publish(body) {
      sequence += 1;
      const event = Object.freeze({ ...body, id: sequence, at: new Date().toISOString() });
      recent.push(event);
      if (recent.length > keep) recent.shift();
      for (const subscriber of [...subscribers]) {
        if (subscriber.waiting) {
          subscriber.queue.push(event);
          if (subscriber.queue.length > maxQueued) {
            drop(subscriber, `the reader fell ${maxQueued} events behind and was dropped`);
          }
          continue;
        }
        if (!subscriber.sink.write(event)) {
          subscriber.waiting = true;
          subscriber.sink.onDrain(() => flush(subscriber));
        }
      }
    },
    subscribe(sink) {
      const subscriber = { sink, queue: [] as TuttiEvent[], waiting: false };
      subscribers.add(subscriber);
      return () => {
        if (subscribers.delete(subscriber)) sink.end();
      };
    },
    recent: () => recent.slice(),
    close() {
      for (const subscriber of [...subscribers]) drop(subscriber, 'the daemon is stopping');
    },
  };
}
