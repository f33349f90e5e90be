import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPSTREAM_FIXTURES } from '@tutti/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamTool } from '../contracts/index.js';
import { isTuttiError } from '../errors/index.js';
import {
  createProcessSupervisor,
  isProcessGroupAlive,
  type ProcessSupervisor,
  waitForGroupExit,
} from '../process/index.js';
import { openStdioUpstream, type StdioUpstreamOptions } from './open-stdio.js';
import type { UpstreamConnection, UpstreamExitInfo } from './types.js';

const fixture = (name: string) => join(UPSTREAM_FIXTURES, name);

let home: string;
let supervisor: ProcessSupervisor;
const open: UpstreamConnection[] = [];

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tutti-upstream-'));
  supervisor = createProcessSupervisor({ graceMs: 300 });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((upstream) => upstream.close()));
});
afterAll(async () => {
  await supervisor.close();
  rmSync(home, { recursive: true, force: true });
});

async function start(
  args: string[] = [],
  extra: Partial<StdioUpstreamOptions> = {},
): Promise<UpstreamConnection> {
  const upstream = await openStdioUpstream({
    command: process.execPath,
    args: [fixture('stdio-server.mjs'), ...args],
    env: { HOME: home, XDG_CONFIG_HOME: home, FIXTURE_SECRET: 'not-logged' },
    supervisor,
    startTimeoutMs: 15_000,
    ...extra,
  });
  open.push(upstream);
  return upstream;
}

/** Resolves with the first value `next()` produces that passes `accept`. */
function nextValue<T>(register: (push: (value: T) => void) => void, accept: (value: T) => boolean) {
  return new Promise<T>((resolve) => register((value) => accept(value) && resolve(value)));
}

/** Pid of the grandchild a fixture started, from its stderr. */
function grandchildOf(upstream: UpstreamConnection): number {
  return Number(/child (\d+)/.exec(upstream.stderrTail())?.[1]);
}

describe('openStdioUpstream', () => {
  it('lists every tool across small pages in server order', async () => {
    const upstream = await start(['--tools', '10', '--page-size', '3']);
    const names = upstream.tools.map((tool) => tool.name);
    // The fixture's 12 own tools and the 10 generated ones.
    expect(names).toHaveLength(22);
    expect(names.slice(0, 3)).toEqual(['echo', 'fail', 'structured']);
    expect(names.at(-1)).toBe('tool_10');
    expect(upstream.protocolVersion).toBe('2025-11-25');
  });

  it('keeps the instructions of its initialize result as they were sent, and none when it sent none', async () => {
    const text = 'Search before you create.\nKeep titles short.';
    expect((await start(['--instructions', text])).instructions).toBe(text);
    expect((await start()).instructions).toBeUndefined();
  });

  it('fails the start when the pages exceed the page cap, and leaves no process', async () => {
    const error = await start(['--tools', '10', '--page-size', '3'], {
      listCaps: { maxPages: 5 },
    }).catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_TOO_MANY_PAGES')).toBe(true);
    expect(supervisor.groups).toEqual([]);
  });

  it('fails the start when the tools exceed the tool cap', async () => {
    const error = await start(['--tools', '10'], { listCaps: { maxTools: 12 } }).catch(
      (caught: unknown) => caught,
    );
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_TOO_MANY_TOOLS')).toBe(true);
  });

  it('fails the start when the server repeats a cursor', async () => {
    const error = await start(['--page-size', '2', '--repeat-cursor']).catch(
      (caught: unknown) => caught,
    );
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_REPEATED_CURSOR')).toBe(true);
    expect((error as Error).message).toContain('"node"');
  });

  it('passes arguments unchanged and returns content, structuredContent and isError', async () => {
    const upstream = await start();
    const args = { nested: { list: [1, 'two', null], flag: false }, 'odd key': 'x' };
    const echoed = await upstream.callTool('echo', args);
    expect(JSON.parse((echoed.content[0] as { text: string }).text)).toEqual(args);
    const structured = await upstream.callTool('structured', { a: 2, b: 5 });
    expect(structured.structuredContent).toEqual({ sum: 7 });
    const failed = await upstream.callTool('fail', { reason: 'nope' });
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: 'text', text: 'failed: nope' }]);
  });

  it('gives the server exactly the environment asked for, plus PATH and its tree marker', async () => {
    const upstream = await start();
    const result = await upstream.callTool('env_keys', {});
    const keys = JSON.parse((result.content[0] as { text: string }).text) as string[];
    expect(keys.filter((key) => !['PATH'].includes(key))).toEqual([
      'FIXTURE_SECRET',
      'HOME',
      'TUTTI_PROCESS_SCOPE',
      'XDG_CONFIG_HOME',
    ]);
  });

  it('sends notifications/cancelled upstream when the caller aborts', async () => {
    const upstream = await start();
    const controller = new AbortController();
    const call = upstream.callTool('sleep', { ms: 60_000 }, { signal: controller.signal });
    // Requests are handled in order: once this answer is back, the sleep is running.
    await upstream.callTool('echo', {});
    controller.abort();
    const error = await call.catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_CANCELLED')).toBe(true);
    const count = await upstream.callTool('cancelled_count', {});
    expect(JSON.parse((count.content[0] as { text: string }).text)).toMatchObject({ cancelled: 1 });
  });

  it('times a call out after callTimeoutMs and cancels it upstream', async () => {
    const upstream = await start([], { callTimeoutMs: 300 });
    const error = await upstream
      .callTool('sleep', { ms: 60_000 })
      .catch((caught: unknown) => caught as Error);
    expect((error as Error).message).toMatch(/timed out/i);
    const count = await upstream.callTool('cancelled_count', {});
    expect(JSON.parse((count.content[0] as { text: string }).text)).toMatchObject({ cancelled: 1 });
  });

  it('keeps each of many concurrent calls paired with its own answer', async () => {
    const upstream = await start();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => upstream.callTool('echo', { i })),
    );
    expect(
      results.map((result) => JSON.parse((result.content[0] as { text: string }).text)),
    ).toEqual(Array.from({ length: 50 }, (_, i) => ({ i })));
  });

  it('re-lists after list_changed and reports the new tools', async () => {
    const seen: UpstreamTool[][] = [];
    let push: (tools: UpstreamTool[]) => void = () => {};
    const upstream = await start([], {
      onToolsChanged: (tools) => {
        seen.push(tools);
        push(tools);
      },
    });
    const withAll = nextValue<UpstreamTool[]>(
      (p) => (push = p),
      (tools) => ['a_1', 'a_2', 'a_3'].every((name) => tools.some((tool) => tool.name === name)),
    );
    await upstream.callTool('add_tool', { names: ['a_1', 'a_2', 'a_3'] });
    expect((await withAll).map((tool) => tool.name).slice(-3)).toEqual(['a_1', 'a_2', 'a_3']);
    // Three notifications in a burst cause at most one re-list in flight plus one pending.
    expect(seen.length).toBeLessThanOrEqual(2);
    expect(upstream.tools.some((tool) => tool.name === 'a_3')).toBe(true);

    const viaSignal = nextValue<UpstreamTool[]>(
      (p) => (push = p),
      (tools) => tools.some((tool) => tool.name.startsWith('signal_')),
    );
    process.kill(upstream.pid!, 'SIGUSR2');
    expect((await viaSignal).some((tool) => tool.name === 'signal_4')).toBe(true);
  });

  it('reports a crash through onExit and rejects the calls in flight', async () => {
    let exitPush: (info: UpstreamExitInfo) => void = () => {};
    const exited = new Promise<UpstreamExitInfo>((resolve) => (exitPush = resolve));
    const upstream = await start(['--spawn-child'], { onExit: (info) => exitPush(info) });
    const pid = upstream.pid!;
    const inFlight = upstream.callTool('sleep', { ms: 60_000 }).catch((caught: unknown) => caught);
    const crashing = upstream.callTool('crash', { code: 3 }).catch((caught: unknown) => caught);
    const info = await exited;
    expect(info).toMatchObject({ code: 3, signal: null, reason: 'exit code 3' });
    expect(info.stderrTail).toContain('crashing with 3');
    for (const error of [await inFlight, await crashing]) {
      expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_EXITED')).toBe(true);
    }
    expect(upstream.closed).toBe(true);
    const late = await upstream.callTool('echo', {}).catch((caught: unknown) => caught);
    expect(isTuttiError(late, 'TUTTI_ERR_UPSTREAM_EXITED')).toBe(true);
    // The crashed server's own child is killed with it.
    expect(await waitForGroupExit(pid, 10_000)).toBe(true);
  });

  it('stops the whole group when initialize does not finish in time', async () => {
    const error = await openStdioUpstream({
      command: process.execPath,
      args: [fixture('silent-server.mjs')],
      env: { HOME: home },
      supervisor,
      startTimeoutMs: 500,
    }).catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_START_TIMEOUT')).toBe(true);
    expect((error as Error).message).toContain('"node"');
    expect((error as Error).message).toContain('500 ms');
    // The silent server and its child ignore SIGTERM: only SIGKILL ends them, and the
    // rejection waits for that.
    expect(supervisor.groups).toEqual([]);
  });

  it('kills grandchildren on close and resolves only when the group is gone', async () => {
    const upstream = await start(['--spawn-child']);
    const pid = upstream.pid!;
    const grandchild = grandchildOf(upstream);
    expect(grandchild).toBeGreaterThan(0);
    expect(isProcessGroupAlive(pid)).toBe(true);
    await upstream.close();
    expect(isProcessGroupAlive(pid)).toBe(false);
    const error = await upstream.callTool('echo', {}).catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_CLOSED')).toBe(true);
  });

  it('fails with a spawn error naming the command when it does not exist', async () => {
    const error = await openStdioUpstream({
      command: join(home, 'no-such-server'),
      supervisor,
    }).catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_SPAWN_FAILED')).toBe(true);
    expect((error as Error).message).toContain('"no-such-server"');
    expect((error as Error).message).toContain('ENOENT');
  });
});

describe('what an upstream writes stays out of the log', () => {
  // Answers initialize and tools/list by hand, then writes two messages the SDK cannot
  // place and reports with the whole message appended.
  const LIAR = `
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let rest = '';
process.stdin.on('data', (chunk) => {
  rest += chunk;
  for (let nl = rest.indexOf('\\n'); nl >= 0; nl = rest.indexOf('\\n')) {
    const m = JSON.parse(rest.slice(0, nl));
    rest = rest.slice(nl + 1);
    if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'liar', version: '1.0.0' } } });
    if (m.method === 'tools/list') {
      send({ jsonrpc: '2.0', id: m.id, result: { tools: [] } });
      send({ jsonrpc: '2.0', id: null, result: 5, token: 'sk-liar-secret-1' });
      send({ jsonrpc: '2.0', id: 9999, result: { token: 'sk-liar-secret-2' } });
    }
  }
});
`;

  it('logs an SDK complaint about a message without the message', async () => {
    const logged: unknown[] = [];
    const logger = {
      debug: (fields: object, message?: string) => logged.push([fields, message]),
      info: () => {},
      warn: () => {},
      error: () => {},
    };
    const upstream = await openStdioUpstream({
      command: process.execPath,
      args: ['-e', LIAR],
      env: { HOME: home },
      supervisor,
      startTimeoutMs: 15_000,
      logger,
    });
    open.push(upstream);
    const errors = () => logged.filter((entry) => JSON.stringify(entry).includes('upstream error'));
    for (let i = 0; i < 400 && errors().length < 2; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(errors()).toHaveLength(2);
    expect(JSON.stringify(logged)).not.toContain('sk-liar-secret');
    expect(JSON.stringify(errors())).toContain('(the message is not logged)');
  });
});
