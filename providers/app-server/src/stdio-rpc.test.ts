import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createProcessSupervisor,
  isProcessGroupAlive,
  isProcessRunning,
  type ProcessSupervisor,
  signalGroup,
  spawnAgent,
} from '@tutti/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { SCRIPTED_ACP_AGENT } from '@tutti/test-kit';
import { StdioRpc } from './stdio-rpc.js';

/** Any newline-delimited JSON-RPC agent does; this one can start a grandchild. */
const SCRIPTED_AGENT = SCRIPTED_ACP_AGENT;

const supervisors: ProcessSupervisor[] = [];
const groups: number[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const supervisor of supervisors.splice(0)) await supervisor.close();
  for (const pgid of groups.splice(0)) if (isProcessGroupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('StdioRpc', () => {
  it('registers the agent with the supervisor and closes only once its whole group is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tutti-stdio-rpc-'));
    dirs.push(dir);
    const record = join(dir, 'record.jsonl');
    const supervisor = createProcessSupervisor();
    supervisors.push(supervisor);
    const agent = spawnAgent(
      {
        command: process.execPath,
        args: [SCRIPTED_AGENT],
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          ACP_SCRIPT_GRANDCHILD: 'stubborn',
          ACP_SCRIPT_RECORD: record,
        },
      },
      { provider: 'scripted', processes: supervisor },
    );
    await agent.started;
    const rpc = StdioRpc.open(agent, { provider: 'scripted' });
    groups.push(rpc.pid);
    // An answer means the grandchild's SIGTERM handler is in place and its pid recorded.
    await rpc.request('initialize', {});
    const start = JSON.parse(readFileSync(record, 'utf8').split('\n')[0]!) as {
      grandchildPid: number;
    };
    expect(supervisor.groups).toEqual([rpc.pid]);
    expect(isProcessRunning(start.grandchildPid)).toBe(true);

    await rpc.close();
    expect(rpc.hasExited).toBe(true);
    expect(isProcessGroupAlive(rpc.pid)).toBe(false);
    expect(isProcessRunning(start.grandchildPid)).toBe(false);
  });
});
