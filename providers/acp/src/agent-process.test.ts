import {
  createProcessSupervisor,
  isProcessGroupAlive,
  type ProcessSupervisor,
  signalGroup,
} from '@tutti/core';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnAgent } from './agent-process.js';
import { alive, closeAll, SCRIPTED_AGENT, scriptedHost } from './test-support/scripted-acp.js';

const supervisors: ProcessSupervisor[] = [];
const groups: number[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await closeAll();
  for (const supervisor of supervisors.splice(0)) await supervisor.close();
  for (const pgid of groups.splice(0)) if (isProcessGroupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('ACP agent process', () => {
  it('registers the agent group with the supervisor the host hands the session', async () => {
    const supervisor = createProcessSupervisor();
    supervisors.push(supervisor);
    const agent = scriptedHost(
      { ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_GRANDCHILD: 'stubborn' },
      { host: { processes: supervisor } },
    );
    const info = await agent.host.createSession(agent.request);
    groups.push(info.pid!);
    const [start] = agent.starts();
    expect(supervisor.groups).toEqual([info.pid]);
    expect(supervisor.reaperPid).toBeTypeOf('number');
    expect(alive(start!.grandchildPid as number)).toBe(true);

    await agent.host.closeSession(info.id);
    // The grandchild ignores SIGTERM: close waited through the SIGKILL that ended it.
    expect(isProcessGroupAlive(info.pid!)).toBe(false);
    expect(alive(start!.grandchildPid as number)).toBe(false);
  });

  it('stops the agent and every member of its group without a supervisor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tutti-acp-process-'));
    dirs.push(dir);
    const record = join(dir, 'record.jsonl');
    const agent = await spawnAgent({
      provider: 'scripted',
      command: process.execPath,
      args: [SCRIPTED_AGENT],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ACP_SCRIPT_GRANDCHILD: '1', ACP_SCRIPT_RECORD: record },
    });
    groups.push(agent.child.pid);
    // The start record is written before the agent reads stdin: one answer proves it is there.
    const answers = createInterface({ input: agent.child.stdout! });
    agent.child.stdin!.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize' })}\n`,
    );
    await once(answers, 'line');
    const start = JSON.parse(readFileSync(record, 'utf8').split('\n')[0]!) as {
      grandchildPid: number;
    };
    expect(alive(start.grandchildPid)).toBe(true);
    await agent.kill();
    expect(isProcessGroupAlive(agent.child.pid)).toBe(false);
    expect(alive(start.grandchildPid)).toBe(false);
    expect(await agent.exited).toBe('signal SIGTERM');
  });

  it('leaves nothing of the agent group when the agent exits during session/new', async () => {
    const supervisor = createProcessSupervisor();
    supervisors.push(supervisor);
    const agent = scriptedHost(
      {
        ACP_SCRIPT_HTTP: 'false',
        ACP_SCRIPT_GRANDCHILD: 'stubborn',
        ACP_SCRIPT_EXIT_ON: 'session/new',
      },
      { host: { processes: supervisor } },
    );
    const error = await agent.host.createSession(agent.request).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'TUTTI_ERR_PROVIDER_AGENT_EXITED' });
    const [start] = agent.starts();
    groups.push(start!.pid as number);
    expect(isProcessGroupAlive(start!.pid as number)).toBe(false);
    expect(alive(start!.grandchildPid as number)).toBe(false);
  });
});
