import { describe, expect, it } from 'vitest';
import { createEventHub, type EventSink, type TuttiEvent } from './event-hub.js';

function sink(accept: () => boolean) {
  const received: TuttiEvent[] = [];
  const drains: (() => void)[] = [];
  let ended: string | undefined | null = null;
  const value: EventSink = {
    write: (event) => {
      received.push(event);
      return accept();
    },
    onDrain: (listener) => drains.push(listener),
    end: (reason) => {
      ended = reason;
    },
  };
  return { value, received, drains, ended: () => ended };
}

const body = (version: number) => ({ type: 'tools.changed' as const, version, toolCount: 1 });

describe('event hub', () => {
  it('numbers events and hands each to every subscriber in order', () => {
    const hub = createEventHub();
    const a = sink(() => true);
    const b = sink(() => true);
    hub.subscribe(a.value);
    hub.subscribe(b.value);
    hub.publish(body(1));
    hub.publish(body(2));
    expect(a.received.map((event) => [event.id, (event as { version?: number }).version])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(b.received).toEqual(a.received);
    expect(hub.recent()).toHaveLength(2);
  });

  it('queues for a reader that is behind and sends the rest when it drains', () => {
    const hub = createEventHub();
    let ready = false;
    const slow = sink(() => ready);
    hub.subscribe(slow.value);
    hub.publish(body(1));
    hub.publish(body(2));
    hub.publish(body(3));
    expect(slow.received.map((event) => (event as { version?: number }).version)).toEqual([1]);
    ready = true;
    slow.drains.shift()!();
    expect(slow.received.map((event) => (event as { version?: number }).version)).toEqual([
      1, 2, 3,
    ]);
  });

  it('drops a reader that falls too far behind, says why, and keeps serving the others', () => {
    const hub = createEventHub({ maxQueued: 10 });
    const stuck = sink(() => false);
    const fine = sink(() => true);
    hub.subscribe(stuck.value);
    hub.subscribe(fine.value);
    for (let version = 1; version <= 50; version++) hub.publish(body(version));
    expect(stuck.ended()).toBe('the reader fell 10 events behind and was dropped');
    expect(fine.received).toHaveLength(50);
    hub.publish(body(51));
    expect(stuck.received).toHaveLength(1);
  });

  it('ends every reader when it closes', () => {
    const hub = createEventHub();
    const a = sink(() => true);
    hub.subscribe(a.value);
    hub.close();
    expect(a.ended()).toBe('the daemon is stopping');
  });
});
