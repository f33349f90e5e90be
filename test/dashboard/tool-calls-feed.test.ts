/**
 * What the Tool calls view holds of the audit trail (dashboard/src/tool-calls-feed.ts):
 * newest first and without a hole, paged down with "Load older", topped up by live reads,
 * a burst larger than one live read, the cap on what it holds, and answers that come back
 * after the filter or the held records changed. The trail here is an array read the way
 * `GET /v1/audit` reads its log (newest first; before, after, limit; nextBefore).
 */
import { describe, expect, it } from 'vitest';
import {
  KEPT,
  NEWER_LIMIT,
  PAGE_SIZE,
  ToolCallsFeed,
  type ToolCallsPage,
} from '../../dashboard/src/tool-calls-feed.ts';

interface Call {
  readonly seq: number;
  readonly connector: string;
  readonly outcome: string;
}

/** An audit trail in memory, and a reader of it that can hold its answers back. */
function trail() {
  const calls: Call[] = [];
  let held: Promise<void> | undefined;
  const add = (count: number, connector = 'echo', outcome = 'ok') => {
    for (let i = 0; i < count; i++) calls.push({ seq: calls.length + 1, connector, outcome });
  };
  const read = async (query: URLSearchParams): Promise<ToolCallsPage<Call>> => {
    const number = (name: string) => (query.has(name) ? Number(query.get(name)) : undefined);
    const [before, after, limit] = [number('before'), number('after'), number('limit') ?? 100];
    const matching = calls
      .filter(
        (call) =>
          (!query.has('connector') || call.connector === query.get('connector')) &&
          (!query.has('outcome') || call.outcome === query.get('outcome')) &&
          (before === undefined || call.seq < before) &&
          (after === undefined || call.seq > after),
      )
      .reverse();
    const records = matching.slice(0, limit);
    const wait = held;
    held = undefined;
    await wait;
    return {
      records,
      ...(matching.length > limit && { nextBefore: (records.at(-1) as Call).seq }),
    };
  };
  /** Holds the next answer back until the returned function is called. */
  const hold = () => {
    let release: (value: undefined) => void = () => undefined;
    held = new Promise<undefined>((resolve) => {
      release = resolve;
    });
    return () => release(undefined);
  };
  return { add, read, hold };
}

/** The seqs held, and whether they run down one by one from the first. */
function seqs(feed: ToolCallsFeed<Call>) {
  const held = feed.records.map((call) => call.seq);
  return { first: held[0], last: held.at(-1), count: held.length, gapless: isRun(held) };
}

function isRun(held: readonly number[]): boolean {
  return held.every((seq, i) => i === 0 || seq === (held[i - 1] as number) - 1);
}

describe('the tool calls the dashboard holds', () => {
  it('reads the newest page, then older pages down to the oldest call, none twice', async () => {
    const t = trail();
    t.add(PAGE_SIZE * 2 + 50);
    const feed = new ToolCallsFeed(t.read);
    await feed.reload();
    expect(seqs(feed)).toEqual({ first: 250, last: 151, count: PAGE_SIZE, gapless: true });
    expect(await feed.older()).toBe(PAGE_SIZE);
    expect(await feed.older()).toBe(50);
    expect(seqs(feed)).toEqual({ first: 250, last: 1, count: 250, gapless: true });
    expect(feed.olderCursor).toBeUndefined();
    expect(await feed.older()).toBe(0);
  });

  it('adds the calls after the newest one held at the top, under its filter', async () => {
    const t = trail();
    t.add(3, 'echo');
    t.add(2, 'notes', 'tool_error');
    const feed = new ToolCallsFeed(t.read);
    await feed.reload({ connector: 'notes' });
    expect(feed.records.map((call) => call.seq)).toEqual([5, 4]);
    t.add(2, 'echo');
    t.add(1, 'notes', 'ok');
    expect(await feed.newer()).toBe(1);
    expect(feed.records.map((call) => call.seq)).toEqual([8, 5, 4]);
    await feed.reload({ outcome: 'tool_error' });
    expect(feed.records.map((call) => call.seq)).toEqual([5, 4]);
    expect(await feed.newer()).toBe(0);
  });

  it('reads a first page on its first live read when none was read', async () => {
    const t = trail();
    const feed = new ToolCallsFeed(t.read);
    t.add(2);
    expect(await feed.newer()).toBe(2);
    expect(feed.loaded).toBe(true);
    expect(seqs(feed)).toEqual({ first: 2, last: 1, count: 2, gapless: true });
  });

  it('holds only a burst larger than one live read, and "Load older" reads on below it', async () => {
    const t = trail();
    t.add(10);
    const feed = new ToolCallsFeed(t.read);
    await feed.reload();
    t.add(NEWER_LIMIT + 40);
    expect(await feed.newer()).toBe(NEWER_LIMIT);
    const newest = 10 + NEWER_LIMIT + 40;
    expect(seqs(feed)).toEqual({
      first: newest,
      last: newest - NEWER_LIMIT + 1,
      count: NEWER_LIMIT,
      gapless: true,
    });
    while (feed.olderCursor !== undefined) await feed.older();
    expect(seqs(feed)).toEqual({ first: newest, last: 1, count: newest, gapless: true });
  });

  it(`holds at most ${KEPT} calls after live reads, the newest, and can read the others again`, async () => {
    const t = trail();
    t.add(PAGE_SIZE);
    const feed = new ToolCallsFeed(t.read);
    await feed.reload();
    for (let i = 0; i < 4; i++) {
      t.add(NEWER_LIMIT - 1);
      await feed.newer();
    }
    const total = PAGE_SIZE + 4 * (NEWER_LIMIT - 1);
    expect(total).toBeGreaterThan(KEPT);
    expect(seqs(feed)).toEqual({
      first: total,
      last: total - KEPT + 1,
      count: KEPT,
      gapless: true,
    });
    expect(await feed.older()).toBe(total - KEPT);
    expect(seqs(feed)).toEqual({ first: total, last: 1, count: total, gapless: true });
  });

  it('drops an answer to a filter that was changed while it was read', async () => {
    const t = trail();
    t.add(2, 'echo');
    t.add(2, 'notes');
    const feed = new ToolCallsFeed(t.read);
    const release = t.hold();
    const first = feed.reload({ connector: 'echo' });
    await feed.reload({ connector: 'notes' });
    release();
    await first;
    expect(feed.filter).toEqual({ connector: 'notes' });
    expect(feed.records.map((call) => call.connector)).toEqual(['notes', 'notes']);
  });

  it('drops an older page when a live read replaced what it was below', async () => {
    const t = trail();
    t.add(PAGE_SIZE + 20);
    const feed = new ToolCallsFeed(t.read);
    await feed.reload();
    const release = t.hold();
    const older = feed.older();
    t.add(NEWER_LIMIT + 5);
    expect(await feed.newer()).toBe(NEWER_LIMIT);
    release();
    expect(await older).toBe(0);
    expect(seqs(feed).gapless).toBe(true);
    expect(seqs(feed).count).toBe(NEWER_LIMIT);
  });

  it('runs one live read at a time, so no call is held twice', async () => {
    const t = trail();
    t.add(1);
    const feed = new ToolCallsFeed(t.read);
    await feed.reload();
    t.add(3);
    const both = await Promise.all([feed.newer(), feed.newer()]);
    expect(both).toEqual([3, 3]);
    expect(seqs(feed)).toEqual({ first: 4, last: 1, count: 4, gapless: true });
  });
});
