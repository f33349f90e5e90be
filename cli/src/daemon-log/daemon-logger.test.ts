import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDaemonLog, type DaemonLog } from './daemon-logger.js';

const temps: string[] = [];
const logs: DaemonLog[] = [];

async function daemonLog(options: { json: boolean; level?: string }) {
  const home = await mkdtemp(join(tmpdir(), 'tutti-daemon-log-'));
  temps.push(home);
  const terminal: string[] = [];
  const log = createDaemonLog({ home, ...options, stderr: (text) => terminal.push(text) });
  logs.push(log);
  const file = async () =>
    (await readFile(log.path, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { log, terminal, file };
}

afterEach(async () => {
  for (const log of logs.splice(0)) log.close();
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("the daemon's logger", () => {
  it('writes info and up to the file and warnings and up to a human terminal by default', async () => {
    const { log, terminal, file } = await daemonLog({ json: false });
    log.logger.info({ connector: 'notes' }, 'connector started');
    log.logger.warn({ connector: 'broken', reason: 'exit code 2' }, 'upstream ended');
    log.logger.debug('not written');
    expect((await file()).map((line) => line.msg)).toEqual(['connector started', 'upstream ended']);
    expect(terminal).toHaveLength(1);
    expect(terminal[0]).toMatch(
      /^\d\d:\d\d:\d\d warning connector broken: upstream ended \(exit code 2\)\n$/,
    );
    expect(log.path).toMatch(/\/logs\/tuttid\.log$/);
  });

  it('writes JSON lines to the terminal with --json, and one level for both with --log-level', async () => {
    const { log, terminal, file } = await daemonLog({ json: true, level: 'debug' });
    log.logger.debug('a detail');
    expect(JSON.parse(terminal[0]!)).toMatchObject({ level: 20, msg: 'a detail' });
    expect((await file()).map((line) => line.msg)).toEqual(['a detail']);
  });

  it('writes nothing anywhere with --log-level silent', async () => {
    const { log, terminal, file } = await daemonLog({ json: false, level: 'silent' });
    log.logger.fatal('nothing');
    expect(terminal).toEqual([]);
    expect(await file()).toEqual([]);
  });

  it("logs Node's process warnings (an SDK's emitWarning) instead of printing them raw", async () => {
    const { terminal, file } = await daemonLog({ json: false });
    const warned = new Promise((resolve) => process.once('warning', resolve));
    process.emitWarning('canUseTool will not be invoked for: x', { code: 'SOME_SDK_SHADOWED' });
    await warned;
    expect(await file()).toContainEqual(
      expect.objectContaining({
        level: 40,
        component: 'node',
        code: 'SOME_SDK_SHADOWED',
        msg: 'canUseTool will not be invoked for: x',
      }),
    );
    expect(terminal.join('')).toContain(
      'warning node: canUseTool will not be invoked for: x [SOME_SDK_SHADOWED]',
    );
    expect(terminal.join('')).not.toContain('(node:');
  });

  it('masks bearer tokens and credential assignments in messages and fields', async () => {
    const { log, file } = await daemonLog({ json: false });
    const token = 'tok3n-abcdefghijklmnopqrstuvwxyz';
    log.logger.warn(
      {
        detail: `Authorization: Bearer ${token}`,
        err: new Error(`API_KEY=sk-secret-value-1234 failed`),
      },
      `sent Bearer ${token}`,
    );
    const text = await readFile(logs[0]!.path, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain('sk-secret-value-1234');
    expect(await file()).toHaveLength(1);
  });
});
