/**
 * A stdio upstream that writes one line over the bound of one message is stopped, and the
 * error says so, with the bound: the SIGTERM the daemon sent it next is not the cause.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HUGE_LINE_SERVER } from '@tutti/test-kit';
import { isTuttiError } from '../errors/index.js';
import { createProcessSupervisor, type ProcessSupervisor } from '../process/index.js';
import { MAX_LINE_BYTES } from './json-line-reader.js';
import { openStdioUpstream } from './open-stdio.js';
import type { UpstreamConnection, UpstreamExitInfo } from './types.js';

let home: string;
let supervisor: ProcessSupervisor;
const open: UpstreamConnection[] = [];

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tutti-line-bound-'));
  supervisor = createProcessSupervisor({ graceMs: 300 });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((upstream) => upstream.close()));
});
afterAll(async () => {
  await supervisor.close();
  rmSync(home, { recursive: true, force: true });
});

async function start(args: string[], onExit?: (info: UpstreamExitInfo) => void) {
  const upstream = await openStdioUpstream({
    command: process.execPath,
    args: [HUGE_LINE_SERVER, ...args],
    env: { HOME: home },
    supervisor,
    startTimeoutMs: 30_000,
    ...(onExit && { onExit }),
  });
  open.push(upstream);
  return upstream;
}

describe('a line over the bound of one message', () => {
  it('fails the start of a server whose tools/list answer is one byte over, naming the bound', async () => {
    const error = await start(['--bytes', String(MAX_LINE_BYTES + 1)]).catch(
      (caught: unknown) => caught,
    );
    expect(isTuttiError(error, 'TUTTI_ERR_UPSTREAM_MESSAGE_TOO_LARGE')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain(`more than ${MAX_LINE_BYTES} bytes (10 MiB)`);
    expect(message).toContain('"node"');
    expect(message).toContain('no setting or manifest field raises it');
    expect(message).not.toContain('SIGTERM');
    expect(supervisor.groups).toEqual([]);
  });

  it('takes a tools/list answer of exactly the bound', async () => {
    const upstream = await start(['--bytes', String(MAX_LINE_BYTES)]);
    expect(upstream.tools.map((tool) => tool.name)).toEqual(['echo']);
  });

  it('ends a running server whose tool answer is over it, with the bound as the reason', async () => {
    let exitPush: (info: UpstreamExitInfo) => void = () => {};
    const exited = new Promise<UpstreamExitInfo>((resolve) => (exitPush = resolve));
    const upstream = await start(['--on', 'tools/call'], (info) => exitPush(info));
    const call = await upstream.callTool('echo', {}).catch((caught: unknown) => caught);
    const info = await exited;
    expect(info.reason).toBe(
      `stopped: a line on its stdout passed the ${MAX_LINE_BYTES}-byte bound of one message`,
    );
    expect(isTuttiError(info.error, 'TUTTI_ERR_UPSTREAM_MESSAGE_TOO_LARGE')).toBe(true);
    expect(isTuttiError(call, 'TUTTI_ERR_UPSTREAM_EXITED')).toBe(true);
    expect((call as Error).message).toContain(`${MAX_LINE_BYTES}-byte bound`);
  });
});
