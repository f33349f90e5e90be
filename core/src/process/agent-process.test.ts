import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { spawnAgent } from './agent-process.js';
import { isProcessGroupAlive, isProcessRunning, signalGroup } from './process-group.js';
import { createSecretRedactor } from './secret-redactor.js';
import { createProcessSupervisor, type ProcessSupervisor } from './supervisor.js';

const supervisors: ProcessSupervisor[] = [];
const groups: number[] = [];
afterEach(async () => {
  for (const supervisor of supervisors.splice(0)) await supervisor.close();
  for (const pgid of groups.splice(0)) if (isProcessGroupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
});

const node = (source: string) => ({
  command: process.execPath,
  args: ['-e', source],
  cwd: process.cwd(),
  env: { PATH: process.env.PATH ?? '' },
});

/** A parent that starts a child ignoring SIGTERM, prints the child's pid, and waits. */
const STUBBORN_TREE = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
setTimeout(() => console.log(child.pid), 200);
setInterval(() => {}, 1000);
`;

describe('spawnAgent', () => {
  it('starts the agent as the leader of its own group, registered with the supervisor', async () => {
    const supervisor = createProcessSupervisor();
    supervisors.push(supervisor);
    const agent = spawnAgent(node(STUBBORN_TREE), { provider: 'test', processes: supervisor });
    groups.push(agent.pid);
    await agent.started;
    const child = Number(
      await new Promise<string>((resolve) => agent.stdout.once('data', (d) => resolve(String(d)))),
    );
    expect(supervisor.groups).toEqual([agent.pid]);
    expect(isProcessRunning(child)).toBe(true);
    await agent.terminate();
    expect(isProcessGroupAlive(agent.pid)).toBe(false);
    expect(isProcessRunning(child)).toBe(false);
    expect(await agent.exited).toMatchObject({ signal: 'SIGTERM', expected: true });
  });

  it('records how the agent ended, with its last stderr lines and known secrets masked', async () => {
    const redactor = createSecretRedactor();
    redactor.add('tok-0123456789-secret');
    const agent = spawnAgent(
      node(
        "console.error('using tok-0123456789-secret'); console.error('giving up'); process.exit(7)",
      ),
      { provider: 'test', redactor },
    );
    const exit = await agent.exited;
    expect(exit).toEqual({
      code: 7,
      signal: null,
      description: 'exit code 7',
      stderr: ['using [redacted]', 'giving up'],
      expected: false,
    });
  });

  it('answers a command that cannot be started, and lets nothing escape', async () => {
    const agent = spawnAgent(
      { command: '/nonexistent/agent', cwd: process.cwd(), env: {} },
      { provider: 'test' },
    );
    const error = await agent.started.catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_PROVIDER_SPAWN_FAILED')).toBe(true);
    expect(await agent.exited).toMatchObject({ description: expect.stringContaining('ENOENT') });
    expect(agent.write('late\n')).toBe(false);
  });

  it('drops writes to an agent whose stdin is closed without an unhandled EPIPE', async () => {
    const agent = spawnAgent(node("require('node:fs').closeSync(0); setInterval(() => {}, 1000)"), {
      provider: 'test',
    });
    groups.push(agent.pid);
    await agent.started;
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 20; i++) agent.write(`${'x'.repeat(65_536)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await agent.terminate();
    expect(isProcessGroupAlive(agent.pid)).toBe(false);
  });
});
