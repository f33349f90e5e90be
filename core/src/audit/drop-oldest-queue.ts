/**
 * A bounded FIFO that makes room by dropping its oldest item: the audit log's waiting
 * records. `push` is O(1) (no `shift`, which moves every item), so it stays cheap on the
 * call path even while the queue overflows.
 */

/** A bounded queue that drops the oldest item to take a new one. */
export interface DropOldestQueue<T> {
  /** Adds `item`; returns how many old items were dropped to make room (0 or 1). */
  push(item: T): number;
  /** Removes and returns every item, oldest first. */
  takeAll(): T[];
  /** Items waiting. */
  readonly size: number;
}

/** A queue holding at most `capacity` items (at least 1). */
export function createDropOldestQueue<T>(capacity: number): DropOldestQueue<T> {
  const max = Math.max(1, capacity);
  let items: (T | undefined)[] = [];
  let head = 0;
  return {
    push(item) {
      items.push(item);
      if (items.length - head <= max) return 0;
      items[head] = undefined;
      head += 1;
      // Compact once the dropped slots outnumber the live ones: amortized O(1).
      if (head > max) {
        items = items.slice(head);
        head = 0;
      }
      return 1;
    },
    takeAll() {
      const taken = (head === 0 ? items : items.slice(head)) as T[];
      items = [];
      head = 0;
      return taken;
    },
    get size() {
      return items.length - head;
    },
  };
}
