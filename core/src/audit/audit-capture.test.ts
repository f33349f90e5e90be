import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, tempDir } from '@tutti/test-kit';
import { createSecretRedactor } from '../process/secret-redactor.js';
import type { AuditEntry, AuditLogOptions } from './audit-log.js';
import { CAPTURED_VALUE_BYTES, capText, truncationMarker } from './audit-record.js';
import { openAuditLog } from './audit-writer.js';
import type { AuditRecord } from './types.js';

afterEach(cleanUp);

const SECRET = 'sk-live-0123456789abcdef';

function entry(args: unknown, callResult?: AuditEntry['callResult']): AuditEntry {
  return {
    time: '2026-01-01T00:00:00.000Z',
    workspace: 'ws-1',
    session: 'sess-1',
    tool: 'notes_create',
    connector: 'notes',
    upstreamTool: 'create',
    protocol: '2025-06-18',
    durationMs: 4,
    outcome: 'ok',
    resultBytes: 20,
    args,
    ...(callResult && { callResult }),
  };
}

/** The records written for `entries` by a log opened with `options`. */
async function written(
  entries: AuditEntry[],
  options: Partial<AuditLogOptions>,
): Promise<AuditRecord[]> {
  const dir = join(await tempDir('tutti-audit-'), 'audit');
  const log = await openAuditLog({ dir, ...options });
  for (const one of entries) log.append(one);
  await log.close();
  const text = await readFile(join(dir, 'audit.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AuditRecord);
}

describe('captured values', () => {
  it('keeps no argument or result values unless capture is on', async () => {
    const [record] = await written(
      [entry({ key: SECRET }, { content: [{ type: 'text', text: 'hi' }] })],
      {},
    );
    expect(record).not.toHaveProperty('arguments');
    expect(record).not.toHaveProperty('result');
    expect(JSON.stringify(record)).not.toContain(SECRET);
  });

  it('keeps arguments and result as text, through the secret redactor', async () => {
    const redactor = createSecretRedactor();
    redactor.add(SECRET);
    const result = { content: [{ type: 'text', text: `made with ${SECRET}` }] };
    const [record] = await written([entry({ title: 'hello', key: SECRET }, result)], {
      captureValues: true,
      redact: redactor.redact,
    });
    expect(record!.arguments).toBe('{"title":"hello","key":"[redacted]"}');
    expect(record!.result).toBe('{"content":[{"type":"text","text":"made with [redacted]"}]}');
    // Sizes and digest are of the arguments as called, not as redacted.
    expect(record!.argBytes).toBe(JSON.stringify({ title: 'hello', key: SECRET }).length);
  });

  it('keeps no result field for a call that had no result', async () => {
    const [record] = await written([entry({ a: 1 })], { captureValues: true, redact: (t) => t });
    expect(record!.arguments).toBe('{"a":1}');
    expect(record).not.toHaveProperty('result');
  });

  it('caps each captured value, marking the cut and saying how large the whole was', async () => {
    const big = { text: 'é'.repeat(10_000) };
    const whole = JSON.stringify(big);
    const [record] = await written(
      [entry(big, { content: [{ type: 'text', text: 'x'.repeat(9000) }] })],
      {
        captureValues: true,
        redact: (text) => text,
      },
    );
    const marker = truncationMarker(Buffer.byteLength(whole, 'utf8'));
    expect(record!.arguments!.endsWith(marker)).toBe(true);
    expect(Buffer.byteLength(record!.arguments!, 'utf8')).toBeLessThanOrEqual(CAPTURED_VALUE_BYTES);
    expect(whole.startsWith(record!.arguments!.slice(0, -marker.length))).toBe(true);
    expect(Buffer.byteLength(record!.result!, 'utf8')).toBeLessThanOrEqual(CAPTURED_VALUE_BYTES);
    expect(record!.result).toContain('…[truncated: ');
    expect(record!.argBytes).toBe(Buffer.byteLength(whole, 'utf8'));
  });

  it('redacts before it cuts, so a secret across the cut leaves nothing of itself', async () => {
    const redactor = createSecretRedactor();
    redactor.add(SECRET);
    const room = CAPTURED_VALUE_BYTES - Buffer.byteLength(truncationMarker(99_999), 'utf8');
    // The secret starts a few bytes before the cut: `{"p":"` is 6 bytes.
    const args = { p: `${'a'.repeat(room - 10)}${SECRET}${'b'.repeat(90_000)}` };
    const [record] = await written([entry(args)], { captureValues: true, redact: redactor.redact });
    expect(record!.arguments).not.toContain(SECRET.slice(0, 4));
  });
});

describe('capText', () => {
  it('leaves text that fits as it is', () => {
    expect(capText('abc', 3)).toBe('abc');
  });

  it('never cuts a character in half', () => {
    const text = '€'.repeat(100);
    const capped = capText(text, 64);
    expect(Buffer.byteLength(capped, 'utf8')).toBeLessThanOrEqual(64);
    expect(capped).not.toContain('\uFFFD');
    expect(capped).toMatch(/^€+…\[truncated: 300 bytes in all\]$/);
  });
});
