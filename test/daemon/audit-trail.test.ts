/**
 * The audit trail with a real tuttid: every call of a daemon that stops cleanly is on disk
 * once, and the next daemon on the home goes on from the last record; `--no-audit` keeps
 * nothing and the route says why; `--audit-values` keeps values with the connector's own
 * secret masked.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, mcpRequest, tempHomes, writeRelease } from '@tutti/test-kit';
import {
  sessionBinding,
  startTuttid,
  stopAll,
  type TuttidProcess,
  waitForConnector,
} from '@tutti/test-kit/tuttid';

const homes = tempHomes('tutti-audit-');

afterEach(async () => {
  await stopAll();
  await homes.removeAll();
  await cleanUp();
});

async function stop(daemon: TuttidProcess): Promise<void> {
  daemon.child.kill('SIGTERM');
  // 143: the clean stop of a SIGTERM (128 + 15).
  expect((await daemon.exited).code).toBe(143);
}

/** Every record in the home's audit files, oldest first. */
async function records(home: string): Promise<{ seq: number; tool: string }[]> {
  const dir = join(home, 'audit');
  const lines: string[] = [];
  for (const file of (await readdir(dir)).sort()) {
    lines.push(...(await readFile(join(dir, file), 'utf8')).split('\n').filter(Boolean));
  }
  return lines.map((line) => JSON.parse(line)).sort((a, b) => a.seq - b.seq);
}

describe('the audit trail', () => {
  it('keeps every call of a daemon that stops cleanly, once, and goes on after a restart', async () => {
    const home = await homes.make();
    let daemon = await startTuttid(home, ['--no-demo']);
    const release = await writeRelease({ key: 'kit', serverArgs: [] });
    await daemon.control('POST', '/v1/connectors/install', { path: release });
    await waitForConnector(daemon, 'kit');
    let binding = await sessionBinding(daemon, 'busy');
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, n) =>
        mcpRequest(binding, 'tools/call', { name: 'kit_echo', arguments: { n } }, { id: n + 1 }),
      ),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    // Stopped at once: the records still waiting to be written are written at the stop.
    await stop(daemon);
    const first = await records(home);
    expect(first.map((record) => record.seq)).toEqual(Array.from({ length: 60 }, (_, n) => n + 1));

    daemon = await startTuttid(home, ['--no-demo']);
    await waitForConnector(daemon, 'kit');
    binding = await sessionBinding(daemon, 'again');
    await mcpRequest(binding, 'tools/call', { name: 'kit_echo', arguments: {} });
    const page = await daemon.control('GET', '/v1/audit?limit=2');
    expect(page.body.records.map((record: { seq: number }) => record.seq)).toEqual([61, 60]);
    expect(page.body.nextBefore).toBe(60);
    await stop(daemon);
    expect((await records(home)).map((record) => record.seq)).toEqual(
      Array.from({ length: 61 }, (_, n) => n + 1),
    );
  });

  it('keeps nothing with --no-audit, and the route says how to turn it on', async () => {
    const home = await homes.make();
    const daemon = await startTuttid(home, ['--no-demo', '--no-audit']);
    const release = await writeRelease({ key: 'kit', serverArgs: [] });
    await daemon.control('POST', '/v1/connectors/install', { path: release });
    await waitForConnector(daemon, 'kit');
    const binding = await sessionBinding(daemon, 'quiet');
    await mcpRequest(binding, 'tools/call', { name: 'kit_echo', arguments: {} });
    const answer = await daemon.control('GET', '/v1/audit');
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('TUTTI_ERR_CONTROL_AUDIT_OFF');
    await stop(daemon);
    await expect(readdir(join(home, 'audit'))).rejects.toThrow(/ENOENT/);
  });

  it('keeps values with --audit-values, the connector secret masked', async () => {
    const home = await homes.make();
    const daemon = await startTuttid(home, ['--no-demo', '--audit-values']);
    const release = await writeRelease({ key: 'keyed', serverArgs: [], apiKeyEnv: 'KEYED_TOKEN' });
    await daemon.control('POST', '/v1/connectors/install', { path: release });
    await daemon.control('PUT', '/v1/connectors/keyed/credentials', { secret: 'keyed-secret-123' });
    await waitForConnector(daemon, 'keyed');
    const binding = await sessionBinding(daemon, 'capturing');
    await mcpRequest(binding, 'tools/call', {
      name: 'keyed_echo',
      arguments: { note: 'the key is keyed-secret-123', plain: 'visible' },
    });
    const { body } = await daemon.control('GET', '/v1/audit');
    const [record] = body.records;
    expect(record.arguments).toContain('visible');
    expect(record.arguments).not.toContain('keyed-secret-123');
    expect(record.result).not.toContain('keyed-secret-123');
    expect(record.result).toContain('visible');
    await stop(daemon);
    const text = await readFile(join(home, 'audit', 'audit.jsonl'), 'utf8');
    expect(text).not.toContain('keyed-secret-123');
  });
});
