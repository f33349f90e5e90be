import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SessionRecord, sessionRecords } from './session-records.js';

/** The fault the next write or rename meets, if any (one-shot). */
const fault = vi.hoisted(() => ({ next: undefined as 'write' | 'rename' | undefined }));

// Passes every call through, except the one a test arms: a write that stops halfway with
// ENOSPC (half of its text on disk), or a rename that fails with EIO. A read-only folder
// would not stop a test run as root.
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const failure = (code: string) => Object.assign(new Error(`${code}: injected`), { code });
  const writeFile: typeof fs.writeFile = async (path, data, options) => {
    if (fault.next !== 'write') return fs.writeFile(path, data, options);
    fault.next = undefined;
    const text = String(data);
    await fs.writeFile(path, text.slice(0, text.length / 2), options);
    throw failure('ENOSPC');
  };
  const rename: typeof fs.rename = async (from, to) => {
    if (fault.next !== 'rename') return fs.rename(from, to);
    fault.next = undefined;
    throw failure('EIO');
  };
  return { ...fs, writeFile, rename };
});

const dirs: string[] = [];
afterEach(async () => {
  fault.next = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const record: SessionRecord = {
  agentSessionId: 'sess-1',
  workspaceId: 'ws',
  provider: 'fake',
  providerSessionId: 'fake-1',
  cwd: '/work',
  launch: {},
  permissions: 'ask',
  settings: [],
  startedAt: '2026-01-01T00:00:00.000Z',
  turns: false,
};

async function recorded() {
  const dir = await mkdtemp(join(tmpdir(), 'tutti-records-test-'));
  dirs.push(dir);
  const records = sessionRecords(join(dir, 'records'));
  await records.put(record, { KEY: 'value' }, {});
  return records;
}

describe('sessionRecords', () => {
  it.each([
    ['its write stops halfway', 'write'],
    ['its rename fails', 'rename'],
  ] as const)(
    'leaves the previous record readable when an update fails because %s',
    async (_, step) => {
      const records = await recorded();
      fault.next = step;
      await expect(
        records.update({ ...record, providerSessionId: 'fake-2', turns: true }),
      ).rejects.toThrow(/injected/);
      expect(fault.next).toBeUndefined();
      const problems: string[] = [];
      const listed = await records.list((file, reason) => problems.push(`${file}: ${reason}`));
      expect(problems).toEqual([]);
      expect(listed).toEqual([{ record, env: { KEY: 'value' }, launchEnv: {} }]);
    },
  );
});
