/**
 * ProcessGroupTransport's writes: the messages sent in one event-loop turn reach the
 * upstream's stdin as one read, the upstream's answers come back in order, and close
 * flushes what is still waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessSupervisor, type ProcessSupervisor } from '../process/index.js';
import { ProcessGroupTransport } from './process-group-transport.js';

// Answers each line with the number of stdin reads it has seen so far.
const COUNTING_UPSTREAM = `
let reads = 0;
let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  reads += 1;
  rest += chunk;
  let end = rest.indexOf('\\n');
  while (end >= 0) {
    const message = JSON.parse(rest.slice(0, end));
    rest = rest.slice(end + 1);
    end = rest.indexOf('\\n');
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { reads } }) + '\\n');
  }
});
`;

/** Blocks the thread for `ms`, so an uncorked write would reach the reader meanwhile. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

let supervisor: ProcessSupervisor;
beforeAll(() => {
  supervisor = createProcessSupervisor({ graceMs: 300 });
});
afterAll(async () => {
  await supervisor.close();
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function startCounting(): Promise<{
  transport: ProcessGroupTransport;
  answers: Map<unknown, number>;
}> {
  const transport = new ProcessGroupTransport(supervisor, {
    command: process.execPath,
    args: ['-e', COUNTING_UPSTREAM],
    env: { PATH: process.env.PATH ?? '' },
  });
  const answers = new Map<unknown, number>();
  transport.intercept = (message) => {
    const { id, result } = message as { id: unknown; result: { reads: number } };
    answers.set(id, result.reads);
    return true;
  };
  await transport.start();
  // One round trip first, so the upstream is reading before a test's writes.
  await transport.send({ jsonrpc: '2.0', id: 0, method: 'ping' });
  await until(() => answers.has(0));
  answers.delete(0);
  return { transport, answers };
}

describe('ProcessGroupTransport writes', () => {
  it('sends the messages of one event-loop turn to the upstream as one read', async () => {
    const { transport, answers } = await startCounting();
    try {
      const sent: Promise<void>[] = [];
      for (let id = 1; id <= 3; id += 1) {
        sent.push(transport.send({ jsonrpc: '2.0', id, method: 'tools/call' }));
        spin(5);
      }
      await Promise.all(sent);
      await until(() => answers.size === 3);
      expect([...answers.values()]).toEqual([2, 2, 2]);

      // A later turn is a new write, so a new read.
      await transport.send({ jsonrpc: '2.0', id: 4, method: 'tools/call' });
      await until(() => answers.size === 4);
      expect(answers.get(4)).toBe(3);
    } finally {
      await transport.close();
    }
  });

  it('rejects a send after the upstream was closed', async () => {
    const { transport } = await startCounting();
    await transport.close();
    await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toThrow(
      'Not connected',
    );
  });
});

describe('ProcessGroupTransport reads', () => {
  it('hands on JSON-RPC 2.0 envelopes and reports any other JSON line without its content', async () => {
    const lines = [
      { jsonrpc: '2.0', id: 1, result: { ok: true } },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '1.0', id: 2, result: {} },
      { token: 'sk-not-for-logs' },
      [{ jsonrpc: '2.0', id: 3, result: {} }],
      { jsonrpc: '2.0', id: 4 },
      { jsonrpc: '2.0', method: 5 },
      { jsonrpc: '2.0', id: 6, error: { code: -32601, message: 'no such method' } },
    ];
    const source = `for (const line of ${JSON.stringify(lines)}) process.stdout.write(JSON.stringify(line) + '\\n'); setInterval(() => {}, 1000);`;
    const transport = new ProcessGroupTransport(supervisor, {
      command: process.execPath,
      args: ['-e', source],
      env: { PATH: process.env.PATH ?? '' },
    });
    const messages: unknown[] = [];
    const errors: string[] = [];
    transport.onmessage = (message) => messages.push(message);
    transport.onerror = (error) => errors.push(error.message);
    await transport.start();
    try {
      await until(() => messages.length + errors.length === lines.length);
      expect(messages).toEqual([lines[0], lines[1], lines[7]]);
      expect(errors).toHaveLength(5);
      expect(new Set(errors)).toEqual(
        new Set(['the upstream wrote a line that is not a JSON-RPC 2.0 message']),
      );
    } finally {
      await transport.close();
    }
  });
});
