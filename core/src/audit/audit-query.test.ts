import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, tempDir } from '@tutti/test-kit';
import type { AuditEntry, AuditLog, AuditLogOptions } from './audit-log.js';
import { openAuditLog } from './audit-writer.js';
import type { AuditOutcome, AuditQuery } from './types.js';

const logs: AuditLog[] = [];

afterEach(async () => {
  await Promise.all(logs.splice(0).map((log) => log.close()));
  await cleanUp();
});

const T0 = Date.UTC(2026, 0, 1);
const OUTCOMES: AuditOutcome[] = ['ok', 'tool_error', 'rpc_error', 'timeout'];

/** Call `n` arrives at T0 + n seconds; connector, session and outcome rotate with n. */
function entry(n: number): AuditEntry {
  return {
    time: new Date(T0 + n * 1000).toISOString(),
    workspace: 'ws-1',
    session: `sess-${n % 2}`,
    tool: `c${n % 3}_tool`,
    connector: `c${n % 3}`,
    protocol: '2025-06-18',
    durationMs: 5,
    outcome: OUTCOMES[n % 4]!,
    resultBytes: 10,
    args: { n },
  };
}

/** A log holding calls 1..count (seq n is call n); the timer never fires on its own. */
async function logWith(count: number, options: Partial<AuditLogOptions> = {}): Promise<AuditLog> {
  const dir = join(await tempDir('tutti-audit-'), 'audit');
  const log = await openAuditLog({ dir, flushMs: 3_600_000, ...options });
  logs.push(log);
  for (let n = 1; n <= count; n += 1) log.append(entry(n));
  return log;
}

async function seqsOf(log: AuditLog, query: AuditQuery): Promise<number[]> {
  return (await log.query(query)).records.map((record) => record.seq);
}

/** Every page of `query`, following nextBefore. */
async function allPages(log: AuditLog, query: AuditQuery): Promise<number[][]> {
  const pages: number[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await log.query({ ...query, ...(before !== undefined && { before }) });
    pages.push(page.records.map((record) => record.seq));
    if (page.nextBefore === undefined) return pages;
    expect(page.nextBefore).toBe(page.records.at(-1)!.seq);
    before = page.nextBefore;
  }
}

const range = (from: number, to: number): number[] =>
  Array.from({ length: from - to + 1 }, (_, index) => from - index);

describe('audit queries', () => {
  it('answers newest first and includes records that still wait to be written', async () => {
    const log = await logWith(5);
    expect(log.stats.written).toBe(0);
    const page = await log.query({});
    expect(page.records.map((record) => record.seq)).toEqual([5, 4, 3, 2, 1]);
    expect(page.records[0]).toMatchObject({ tool: 'c2_tool', outcome: 'tool_error' });
    expect(page.nextBefore).toBeUndefined();
  });

  it('filters by connector, session, outcome and time, and by all at once', async () => {
    const log = await logWith(24);
    expect(await seqsOf(log, { connector: 'c1' })).toEqual([22, 19, 16, 13, 10, 7, 4, 1]);
    expect(await seqsOf(log, { session: 'sess-0' })).toEqual(
      range(24, 1).filter((n) => n % 2 === 0),
    );
    expect(await seqsOf(log, { outcome: 'timeout' })).toEqual([23, 19, 15, 11, 7, 3]);
    expect(await seqsOf(log, { since: T0 + 20_000 })).toEqual([24, 23, 22, 21, 20]);
    expect(
      await seqsOf(log, { connector: 'c1', session: 'sess-1', outcome: 'tool_error', since: T0 }),
    ).toEqual([13, 1]);
    expect(await seqsOf(log, { connector: 'nobody' })).toEqual([]);
  });

  it('pages with nextBefore, without gaps or repeats, and says when the last page is reached', async () => {
    const log = await logWith(25);
    expect(await allPages(log, { limit: 10 })).toEqual([range(25, 16), range(15, 6), range(5, 1)]);
    // A full last page is still the last page.
    expect(await allPages(log, { limit: 5 })).toHaveLength(5);
    expect(await allPages(log, { limit: 6, connector: 'c0' })).toEqual([
      [24, 21, 18, 15, 12, 9],
      [6, 3],
    ]);
  });

  it('pages across rotated files', async () => {
    const log = await logWith(300, { maxFileBytes: 4096, maxFiles: 100 });
    const pages = await allPages(log, { limit: 7 });
    expect(pages.flat()).toEqual(range(300, 1));
    expect(await seqsOf(log, { before: 100, limit: 3 })).toEqual([99, 98, 97]);
  });

  it('answers what is newer than after, and pages within it', async () => {
    const log = await logWith(10);
    expect(await seqsOf(log, { after: 7 })).toEqual([10, 9, 8]);
    expect(await seqsOf(log, { after: 10 })).toEqual([]);
    for (let n = 11; n <= 13; n += 1) log.append(entry(n));
    expect(await seqsOf(log, { after: 10 })).toEqual([13, 12, 11]);
    const first = await log.query({ after: 2, limit: 4 });
    expect(first.records.map((record) => record.seq)).toEqual([13, 12, 11, 10]);
    expect(await seqsOf(log, { after: 2, before: first.nextBefore!, limit: 4 })).toEqual([
      9, 8, 7, 6,
    ]);
  });

  it('returns 100 records unless asked, and never more than 1,000', async () => {
    const log = await logWith(1200);
    const byDefault = await log.query({});
    expect(byDefault.records).toHaveLength(100);
    expect(byDefault.nextBefore).toBe(1101);
    expect((await log.query({ limit: 5000 })).records).toHaveLength(1000);
    expect((await log.query({ limit: 0 })).records).toHaveLength(1);
  });

  it('finds a call that arrived before a later one but ended after it', async () => {
    const log = await logWith(0);
    // A 30 s call that arrived at T0 + 100 s is appended after a short one from T0 + 120 s.
    log.append({ ...entry(120), tool: 'short' });
    log.append({ ...entry(100), tool: 'long', durationMs: 30_000 });
    const page = await log.query({ since: T0 + 110_000 });
    expect(page.records.map((record) => record.tool)).toEqual(['short']);
    const all = await log.query({ since: T0 + 90_000 });
    expect(all.records.map((record) => record.tool)).toEqual(['long', 'short']);
  });

  it('skips lines that are not records, a torn one included', async () => {
    const dir = join(await tempDir('tutti-audit-'), 'audit');
    const first = await openAuditLog({ dir });
    first.append(entry(1));
    await first.close();
    await appendFile(join(dir, 'audit.jsonl'), 'not json\n[1,2]\n{"seq":"x"}\n{"seq":9,"ti');
    const second = await openAuditLog({ dir });
    logs.push(second);
    second.append(entry(2));
    expect(await seqsOf(second, {})).toEqual([2, 1]);
  });
});
