import { once } from 'node:events';
import { createInterface } from 'node:readline';
import {
  createProcessSupervisor,
  isProcessGroupAlive,
  isProcessRunning,
  type ProcessSupervisor,
  signalGroup,
} from '@tutti/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createClaudeProcessTracker } from './claude-process.js';

/** A child that ignores SIGTERM and prints its pid once its handler is in place. */
const STUBBORN =
  "process.on('SIGTERM', () => {}); console.log(process.pid); setInterval(() => {}, 1000);";
/** A Claude Code stand-in: starts {@link STUBBORN} and exits when its stdin ends (as Claude does). */
const CLAUDE = `
const { spawn } = require('node:child_process');
spawn(process.execPath, ['-e', ${JSON.stringify(STUBBORN)}], { stdio: ['ignore', 'inherit', 'ignore'] });
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

const supervisors: ProcessSupervisor[] = [];
const groups: number[] = [];

afterEach(async () => {
  for (const supervisor of supervisors.splice(0)) await supervisor.close();
  for (const pgid of groups.splice(0)) if (isProcessGroupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
});

describe('Claude Code process tracker', () => {
  it('registers Claude Code with the supervisor and stops only once its whole group is gone', async () => {
    const supervisor = createProcessSupervisor();
    supervisors.push(supervisor);
    const tracker = createClaudeProcessTracker({ processes: supervisor });
    const spawned = tracker.spawn({
      command: process.execPath,
      args: ['-e', CLAUDE],
      env: { PATH: process.env.PATH ?? '' },
      signal: new AbortController().signal,
    });
    const pid = tracker.pid!;
    groups.push(pid);
    const [line] = (await once(createInterface({ input: spawned.stdout }), 'line')) as [string];
    const stubborn = Number(line);
    expect(supervisor.groups).toEqual([pid]);
    expect(isProcessRunning(stubborn)).toBe(true);

    // What query.close() does first: end Claude Code's stdin.
    spawned.stdin.end();
    await tracker.stop();
    expect(isProcessGroupAlive(pid)).toBe(false);
    expect(isProcessRunning(stubborn)).toBe(false);
    expect(spawned.exitCode).toBe(0);
  });
});
