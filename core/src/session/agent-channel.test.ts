import { afterEach, describe, expect, it } from 'vitest';
import { type AgentProcess, spawnAgent } from '../process/agent-process.js';
import { isProcessGroupAlive } from '../process/process-group.js';
import { openAgentChannel } from './agent-channel.js';

const agents: AgentProcess[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.terminate()));
});

function start(source: string): AgentProcess {
  const agent = spawnAgent(
    { command: process.execPath, args: ['-e', source], cwd: process.cwd(), env: {} },
    { provider: 'test' },
  );
  agents.push(agent);
  return agent;
}

describe('agent channel', () => {
  it('delivers each JSON object line and skips blank lines', async () => {
    const channel = openAgentChannel(
      start(`process.stdout.write('{"a":1}\\n\\n{"b":2}\\n'); setInterval(() => {}, 1000)`),
    );
    const received: unknown[] = [];
    channel.onMessage((message) => received.push(message));
    await expect.poll(() => received).toEqual([{ a: 1 }, { b: 2 }]);
    expect(channel.fault).toBeUndefined();
  });

  it.each([
    [
      'a line over the bound',
      `process.stdout.write('{"x":"' + 'y'.repeat(70000) + '"}\\n'); setInterval(() => {}, 1000)`,
      { maxLineBytes: 65_536 },
      'line-too-long',
    ],
    [
      'lines that are not JSON-RPC',
      `setInterval(() => console.log('<html>'), 1)`,
      { maxNoiseLines: 20 },
      'not-json',
    ],
    [
      'a flood of messages',
      `const f = () => { for (let i = 0; i < 500; i++) console.log('{"method":"n"}'); setImmediate(f); }; f();`,
      { maxMessagesPerSecond: 1_000 },
      'flood',
    ],
  ])('stops an agent that writes %s and says so', async (_name, source, limits, kind) => {
    const agent = start(`console.error('agent says hello'); ${source}`);
    const channel = openAgentChannel(agent, limits);
    const fault = await channel.faulted;
    expect(fault.kind).toBe(kind);
    await agent.exited;
    expect(isProcessGroupAlive(agent.pid)).toBe(false);
    const error = channel.errorFor('initialize');
    expect(error.code).toBe('TUTTI_ERR_PROVIDER_AGENT_MISBEHAVED');
    expect(error.message).toContain('agent says hello');
  });

  it('reports an agent that exits, with its exit code and stderr', async () => {
    const channel = openAgentChannel(
      start("console.error('no model configured'); process.exit(5)"),
    );
    const fault = await channel.faulted;
    expect(fault).toMatchObject({ kind: 'exited', what: 'exited (exit code 5)' });
    expect(channel.errorFor('initialize').message).toBe(
      'The agent of provider "test" exited (exit code 5) during "initialize". Its last stderr lines: [no model configured]. Check the agent command, its environment and its settings.',
    );
  });

  it('reports an agent that closed its stdin under a write', async () => {
    const agent = start("require('node:fs').closeSync(0); setInterval(() => {}, 1000)");
    await agent.started;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const channel = openAgentChannel(agent);
    for (let i = 0; i < 10; i++) channel.send({ id: i, method: 'x', padding: 'p'.repeat(65_536) });
    const fault = await channel.faulted;
    expect(fault.kind).toBe('stdin-closed');
    expect(fault.what).toMatch(/closed its stdin/);
  });
});
