import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, tempDir } from '@tutti/test-kit';
import type { AuditEntry } from './audit-log.js';
import { openAuditLog } from './audit-writer.js';
import type { AuditRecord } from './types.js';

afterEach(cleanUp);

function entry(n: number): AuditEntry {
  return {
    time: new Date(Date.UTC(2026, 0, 1) + n).toISOString(),
    workspace: 'ws-1',
    session: 'sess-1',
    tool: 'notes_search',
    connector: 'notes',
    protocol: '2025-06-18',
    durationMs: 3,
    outcome: 'ok',
    resultBytes: 10,
    args: { query: `call ${n}` },
  };
}

/** The folder's files, oldest first (names sort by age, the current file last). */
async function filesOf(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => name !== 'audit.jsonl').sort();
  return [...names, 'audit.jsonl'];
}

async function recordsIn(dir: string, name: string): Promise<AuditRecord[]> {
  const text = await readFile(join(dir, name), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as AuditRecord);
}

describe('audit file rotation', () => {
  it('keeps at most maxFiles files of at most maxFileBytes each, deleting the oldest', async () => {
    const dir = join(await tempDir('tutti-audit-'), 'audit');
    const maxFileBytes = 16 * 1024;
    const maxFiles = 4;
    const log = await openAuditLog({ dir, maxFileBytes, maxFiles });
    for (let n = 1; n <= 20_000; n += 1) {
      log.append(entry(n));
      if (n % 2_000 === 0) await log.flush();
    }
    await log.close();

    const names = await filesOf(dir);
    expect(names).toHaveLength(maxFiles);
    let total = 0;
    for (const name of names) {
      const info = await stat(join(dir, name));
      expect(info.size).toBeLessThanOrEqual(maxFileBytes);
      expect(info.mode & 0o777).toBe(0o600);
      total += info.size;
    }
    expect(total).toBeLessThanOrEqual(maxFiles * maxFileBytes);

    // What is left is the newest records, in order, with no gap between files.
    const seqs: number[] = [];
    for (const name of names) {
      const records = await recordsIn(dir, name);
      if (name !== 'audit.jsonl')
        expect(name).toBe(`audit-${String(records[0]!.seq).padStart(16, '0')}.jsonl`);
      seqs.push(...records.map((record) => record.seq));
    }
    expect(seqs.at(-1)).toBe(20_000);
    expect(seqs[0]).toBeGreaterThan(1);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => seqs[0]! + index));
    expect(log.stats).toEqual({ written: 20_000, dropped: 0 });
  });

  it('gives a record larger than maxFileBytes a file of its own', async () => {
    const dir = join(await tempDir('tutti-audit-'), 'audit');
    const log = await openAuditLog({ dir, maxFileBytes: 512, maxFiles: 8 });
    log.append(entry(1));
    log.append({ ...entry(2), args: { text: 'x'.repeat(2000) } });
    log.append(entry(3));
    await log.close();
    const perFile = await Promise.all(
      (await filesOf(dir)).map(async (name) => (await recordsIn(dir, name)).map((r) => r.seq)),
    );
    expect(perFile).toEqual([[1], [2], [3]]);
  });

  it('continues rotating into names that sort by age after a reopen', async () => {
    const dir = join(await tempDir('tutti-audit-'), 'audit');
    for (let round = 0; round < 3; round += 1) {
      const log = await openAuditLog({ dir, maxFileBytes: 2048, maxFiles: 100 });
      for (let n = 0; n < 40; n += 1) log.append(entry(round * 40 + n));
      await log.close();
    }
    const seqs: number[] = [];
    for (const name of await filesOf(dir)) {
      seqs.push(...(await recordsIn(dir, name)).map((record) => record.seq));
    }
    expect(seqs).toEqual(Array.from({ length: 120 }, (_, index) => index + 1));
  });

  it('deletes the oldest files at open when maxFiles is lower than before', async () => {
    const dir = join(await tempDir('tutti-audit-'), 'audit');
    const before = await openAuditLog({ dir, maxFileBytes: 1024, maxFiles: 50 });
    for (let n = 0; n < 100; n += 1) before.append(entry(n));
    await before.close();
    expect((await filesOf(dir)).length).toBeGreaterThan(3);

    const after = await openAuditLog({ dir, maxFileBytes: 1024, maxFiles: 3 });
    await after.close();
    const names = await filesOf(dir);
    expect(names).toHaveLength(3);
    const last = await recordsIn(dir, 'audit.jsonl');
    expect(last.at(-1)!.seq).toBe(100);
  });

  it('leaves files it does not know alone', async () => {
    const dir = join(await tempDir('tutti-audit-'), 'audit');
    const first = await openAuditLog({ dir, maxFileBytes: 1024, maxFiles: 2 });
    await writeFile(join(dir, 'notes.txt'), 'mine');
    for (let n = 0; n < 100; n += 1) first.append(entry(n));
    await first.close();
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });
});
