import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, chmod, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanUp, tempDir } from '@tutti/test-kit';
import type { AuditEntry } from './audit-log.js';
import { openAuditLog } from './audit-writer.js';
import type { AuditRecord } from './types.js';

afterEach(cleanUp);

/** A call as the call path hands it over; `n` marks it (its tool name and time). */
function entry(n: number, more: Partial<AuditEntry> = {}): AuditEntry {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    workspace: 'ws-1',
    session: 'sess-1',
    tool: `notes_tool_${n}`,
    connector: 'notes',
    upstreamTool: `tool_${n}`,
    generation: 3,
    protocol: '2025-06-18',
    durationMs: 12,
    outcome: 'ok',
    resultBytes: 40,
    args: { n },
    ...more,
  };
}

async function auditDir(): Promise<string> {
  return join(await tempDir('tutti-audit-'), 'audit');
}

async function linesOf(dir: string): Promise<string[]> {
  const text = await readFile(join(dir, 'audit.jsonl'), 'utf8');
  return text.split('\n').filter((line) => line.length > 0);
}

async function recordsOf(dir: string): Promise<AuditRecord[]> {
  return (await linesOf(dir)).map((line) => JSON.parse(line) as AuditRecord);
}

describe('the audit log', () => {
  it('writes each appended call as one JSON line with its seq, sizes and digest', async () => {
    const dir = await auditDir();
    const log = await openAuditLog({ dir });
    const args = { title: 'café', tags: ['a'] };
    log.append(entry(1, { args, provider: 'acp', code: 'TUTTI_ERR_X', rpcCode: -32603 }));
    log.append(entry(2, { args: undefined, outcome: 'tool_error', traceId: 'abc' }));
    await log.close();

    const [first, second] = await recordsOf(dir);
    const text = JSON.stringify(args);
    expect(first).toEqual({
      seq: 1,
      time: '2026-01-01T00:00:01.000Z',
      workspace: 'ws-1',
      session: 'sess-1',
      provider: 'acp',
      tool: 'notes_tool_1',
      connector: 'notes',
      upstreamTool: 'tool_1',
      generation: 3,
      protocol: '2025-06-18',
      durationMs: 12,
      outcome: 'ok',
      code: 'TUTTI_ERR_X',
      rpcCode: -32603,
      argBytes: Buffer.byteLength(text, 'utf8'),
      resultBytes: 40,
      argDigest: `sha256:${createHash('sha256').update(text).digest('hex')}`,
    });
    expect(first!.argBytes).toBe(text.length + 1);
    expect(second).toMatchObject({ seq: 2, outcome: 'tool_error', traceId: 'abc', argBytes: 2 });
    expect(second!.argDigest).toBe(`sha256:${createHash('sha256').update('{}').digest('hex')}`);
    expect(second).not.toHaveProperty('args');
    expect(second).not.toHaveProperty('arguments');
    expect(log.stats).toEqual({ written: 2, dropped: 0 });
  });

  it('keeps its folder 0700 and its file 0600, tightening a folder that was looser', async () => {
    const dir = await auditDir();
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    const log = await openAuditLog({ dir });
    log.append(entry(1));
    await log.close();
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'audit.jsonl'))).mode & 0o777).toBe(0o600);
  });

  it('neither serializes nor writes on the caller stack of append', async () => {
    const dir = await auditDir();
    const log = await openAuditLog({ dir, flushMs: 0 });
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      log.append(entry(1));
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
    expect(existsSync(join(dir, 'audit.jsonl'))).toBe(false);
    await log.flush();
    expect(await linesOf(dir)).toHaveLength(1);
    await log.close();
  });

  it('writes waiting records on its timer, without a flush', async () => {
    const dir = await auditDir();
    const log = await openAuditLog({ dir, flushMs: 5 });
    log.append(entry(1));
    log.append(entry(2));
    await expect.poll(() => log.stats.written).toBe(2);
    expect((await recordsOf(dir)).map((record) => record.seq)).toEqual([1, 2]);
    await log.close();
  });

  it('writes early when many records wait, before the flush interval is up', async () => {
    const dir = await auditDir();
    // An hour: only the early write can write these.
    const log = await openAuditLog({ dir, flushMs: 3_600_000 });
    for (let n = 0; n < 600; n += 1) log.append(entry(n));
    await expect.poll(() => log.stats.written).toBe(600);
    await log.close();
  });

  it('continues the seq of the records already there when opened again', async () => {
    const dir = await auditDir();
    const first = await openAuditLog({ dir });
    for (let n = 0; n < 3; n += 1) first.append(entry(n));
    await first.close();
    const second = await openAuditLog({ dir });
    second.append(entry(3));
    second.append(entry(4));
    await second.close();
    expect((await recordsOf(dir)).map((record) => record.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('skips a torn last line when opened again and starts its next line on a line of its own', async () => {
    const dir = await auditDir();
    const first = await openAuditLog({ dir });
    first.append(entry(1));
    first.append(entry(2));
    await first.close();
    // A crash in the middle of a write.
    await appendFile(join(dir, 'audit.jsonl'), '{"seq":3,"time":"2026-01-0');
    const second = await openAuditLog({ dir });
    second.append(entry(3));
    await second.close();

    const lines = await linesOf(dir);
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe('{"seq":3,"time":"2026-01-0');
    expect(JSON.parse(lines[3]!)).toMatchObject({ seq: 3, tool: 'notes_tool_3' });
  });

  it('writes everything on close, exactly once, and drops and counts appends after it', async () => {
    const dir = await auditDir();
    const log = await openAuditLog({ dir, flushMs: 1 });
    for (let n = 0; n < 3000; n += 1) {
      log.append(entry(n));
      // Flushes and timer writes interleave with appends.
      if (n % 700 === 0) void log.flush();
      if (n % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await log.close();
    await log.close();
    log.append(entry(3000));
    await log.flush();

    const seqs = (await recordsOf(dir)).map((record) => record.seq);
    expect(seqs).toHaveLength(3000);
    expect(seqs).toEqual(Array.from({ length: 3000 }, (_, index) => index + 1));
    expect(log.stats).toEqual({ written: 3000, dropped: 1 });
  });

  it('drops the oldest waiting records past maxQueued and counts them', async () => {
    const dir = await auditDir();
    const log = await openAuditLog({ dir, maxQueued: 10, flushMs: 3_600_000 });
    for (let n = 0; n < 25; n += 1) log.append(entry(n));
    expect(log.stats.dropped).toBe(15);
    await log.close();
    const records = await recordsOf(dir);
    expect(records.map((record) => record.tool)).toEqual(
      Array.from({ length: 10 }, (_, index) => `notes_tool_${index + 15}`),
    );
    expect(log.stats).toEqual({ written: 10, dropped: 15 });
  });

  it('counts the records of a failed write as dropped, tells onError, and never writes them later', async () => {
    const dir = await auditDir();
    const errors: Error[] = [];
    const log = await openAuditLog({ dir, onError: (error) => errors.push(error) });
    log.append(entry(1));
    await log.flush();
    // The file becomes a folder: opening it for append fails (chmod would not stop root).
    const file = join(dir, 'audit.jsonl');
    await rm(file);
    await mkdir(file);
    for (let n = 2; n <= 4; n += 1) log.append(entry(n));
    await log.flush();
    expect(log.stats).toEqual({ written: 1, dropped: 3 });
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toContain('EISDIR');

    await rm(file, { recursive: true });
    log.append(entry(5));
    await log.close();
    const records = await recordsOf(dir);
    expect(records.map((record) => record.tool)).toEqual(['notes_tool_5']);
    expect(records[0]!.seq).toBeGreaterThan(1);
    expect(log.stats).toEqual({ written: 2, dropped: 3 });
  });

  it('makes its folder again when it is removed, and says so', async () => {
    const dir = await auditDir();
    const errors: Error[] = [];
    const log = await openAuditLog({ dir, onError: (error) => errors.push(error) });
    log.append(entry(1));
    await log.flush();
    await rm(dir, { recursive: true });
    log.append(entry(2));
    await log.close();
    expect((await recordsOf(dir)).map((record) => record.seq)).toEqual([2]);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringContaining('was moved or removed'),
    ]);
    expect(log.stats).toEqual({ written: 2, dropped: 0 });
  });

  it('does not make the home again when the whole home is removed: the write fails instead', async () => {
    const home = await tempDir('tutti-audit-');
    const dir = join(home, 'audit');
    const errors: Error[] = [];
    const log = await openAuditLog({ dir, onError: (error) => errors.push(error) });
    log.append(entry(1));
    await log.flush();
    await rm(home, { recursive: true });
    log.append(entry(2));
    await log.close();
    expect(existsSync(home)).toBe(false);
    expect(log.stats).toEqual({ written: 1, dropped: 1 });
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toContain('ENOENT');
  });
});
