import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive, isProcessRunning, signalGroup } from './process-group.js';
import { type DetachedChild, spawnDetached } from './spawn-detached.js';
import { createProcessSupervisor, type ProcessSupervisor } from './supervisor.js';

/** A child of the leader, in its group, that ignores SIGTERM and prints its pid when ready. */
const STUBBORN =
  "process.on('SIGTERM', () => {}); console.log(process.pid); setInterval(() => {}, 1000);";
/** A leader that starts {@link STUBBORN} and exits when a line arrives on its stdin. */
const LEADER = `
const { spawn } = require('node:child_process');
spawn(process.execPath, ['-e', ${JSON.stringify(STUBBORN)}], { stdio: ['ignore', 'inherit', 'ignore'] });
process.on('SIGTERM', () => process.exit(0));
process.stdin.on('data', () => process.exit(0));
setInterval(() => {}, 1000);
`;

const started: DetachedChild[] = [];
const supervisors: ProcessSupervisor[] = [];

afterEach(async () => {
  for (const supervisor of supervisors.splice(0)) await supervisor.close();
  for (const { child } of started.splice(0)) {
    if (child.pid && isProcessGroupAlive(child.pid)) signalGroup(child.pid, 'SIGKILL');
  }
});

/** Starts the leader and resolves with it and the pid of its stubborn child. */
async function startLeader(processes?: ProcessSupervisor) {
  const detached = spawnDetached({
    command: process.execPath,
    args: ['-e', LEADER],
    env: { PATH: process.env.PATH ?? '' },
    graceMs: 200,
    processes,
  });
  started.push(detached);
  const [line] = (await once(createInterface({ input: detached.child.stdout! }), 'line')) as [
    string,
  ];
  return { detached, pgid: detached.child.pid!, stubborn: Number(line) };
}

describe('spawnDetached', () => {
  it('resolves terminate only once a member that ignores SIGTERM is gone too', async () => {
    const { detached, pgid, stubborn } = await startLeader();
    expect(isProcessRunning(stubborn)).toBe(true);
    await detached.terminate();
    expect(isProcessGroupAlive(pgid)).toBe(false);
    expect(isProcessRunning(stubborn)).toBe(false);
    expect(detached.child.exitCode ?? detached.child.signalCode).not.toBeNull();
  });

  it('kills what the leader left in its group when the leader exits on its own', async () => {
    const { detached, pgid, stubborn } = await startLeader();
    detached.child.stdin!.write('exit\n');
    await detached.gone;
    expect(detached.child.exitCode).toBe(0);
    expect(isProcessGroupAlive(pgid)).toBe(false);
    expect(isProcessRunning(stubborn)).toBe(false);
  });

  it('registers the group with the supervisor and its reaper, and forgets it once gone', async () => {
    const supervisor = createProcessSupervisor({ graceMs: 200 });
    supervisors.push(supervisor);
    const { detached, pgid } = await startLeader(supervisor);
    expect(supervisor.groups).toContain(pgid);
    expect(supervisor.reaperPid).toBeTypeOf('number');
    await detached.terminate();
    await detached.gone;
    expect(supervisor.groups).not.toContain(pgid);
  });

  it('lets the supervisor stop the groups it adopted when it closes', async () => {
    const supervisor = createProcessSupervisor({ graceMs: 200 });
    supervisors.push(supervisor);
    const first = await startLeader(supervisor);
    const second = await startLeader(supervisor);
    await supervisor.close();
    for (const { pgid, stubborn } of [first, second]) {
      expect(isProcessGroupAlive(pgid)).toBe(false);
      expect(isProcessRunning(stubborn)).toBe(false);
    }
  });

  it('reports a command that cannot start as an error event and has nothing to stop', async () => {
    const supervisor = createProcessSupervisor({ graceMs: 200 });
    supervisors.push(supervisor);
    const detached = spawnDetached({
      command: '/nonexistent/tutti-agent',
      env: {},
      processes: supervisor,
    });
    const [error] = (await once(detached.child, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ENOENT');
    await detached.terminate();
    expect(supervisor.groups).toEqual([]);
  });
});
