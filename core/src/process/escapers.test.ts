import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { STDIO_SERVER as SERVER } from '@tutti/test-kit';
import { isProcessRunning } from './process-group.js';
import { readProcessTable } from './process-tree.js';
import { isChildSubreaper } from './subreaper.js';
import {
  createProcessSupervisor,
  type ProcessSupervisor,
  type SupervisedProcess,
} from './supervisor.js';

const supervisors: ProcessSupervisor[] = [];
const strays = new Set<number>();

afterEach(async () => {
  for (const supervisor of supervisors.splice(0)) await supervisor.close();
  for (const pid of strays) {
    try {
      if (isProcessRunning(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  strays.clear();
});

/** Starts the fixture server with escapers; resolves with it and their pids once printed. */
async function startWithEscapers(): Promise<{
  proc: SupervisedProcess;
  escaper: number;
  orphan: number;
}> {
  const supervisor = createProcessSupervisor({ graceMs: 200 });
  supervisors.push(supervisor);
  const proc = await supervisor.spawn({
    command: process.execPath,
    args: [SERVER, '--spawn-escaper', '--spawn-orphan'],
    env: { PATH: process.env.PATH ?? '' },
  });
  for (let i = 0; i < 400; i++) {
    const tail = proc.stderrTail();
    const escaper = Number(/escaper (\d+)/.exec(tail)?.[1]);
    const orphan = Number(/orphan (\d+)/.exec(tail)?.[1]);
    if (escaper && orphan) {
      strays.add(escaper);
      strays.add(orphan);
      return { proc, escaper, orphan };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the fixture printed no escapers: ${proc.stderrTail()}`);
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 400; i++) {
    if (!isProcessRunning(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

function parentOf(pid: number): number | undefined {
  return readProcessTable().get(pid)?.ppid;
}

function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

describe('processes that leave their group', () => {
  it('makes this process the child subreaper, so an orphan of the tree is re-parented to it', async () => {
    const { proc, orphan } = await startWithEscapers();
    expect(isChildSubreaper()).toBe(true);
    expect(parentOf(orphan)).toBe(process.pid);
    expect(sessionOf(orphan)).not.toBe(sessionOf(proc.pid));
  });

  it('ends a setsid child and a double-forked orphan when the group is stopped', async () => {
    const { proc, escaper, orphan } = await startWithEscapers();
    expect(isProcessRunning(escaper)).toBe(true);
    expect(isProcessRunning(orphan)).toBe(true);
    expect(sessionOf(escaper)).toBe(escaper);
    await proc.terminate();
    expect(isProcessRunning(escaper)).toBe(false);
    expect(isProcessRunning(orphan)).toBe(false);
    // The adopted orphan was also collected: no zombie is left behind as our child.
    expect(readProcessTable().get(orphan)).toBeUndefined();
  });

  it('ends what left the group when the leader dies on its own', async () => {
    const { proc, escaper, orphan } = await startWithEscapers();
    process.kill(proc.pid, 'SIGKILL');
    await proc.exited;
    expect(await gone(escaper)).toBe(true);
    expect(await gone(orphan)).toBe(true);
  });
});
