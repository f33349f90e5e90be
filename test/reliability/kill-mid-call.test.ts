/**
 * An upstream killed in the middle of a call, 100 times, through the real loopback
 * server of an in-process daemon: every in-flight call gets an answer, the route comes
 * back with a new generation, and the killed process group (the upstream and the child it
 * spawned) is gone each time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '@tutti/core/internal';
import type { ConnectorStatus } from '@tutti/core/internal';
import { writeRelease, cleanUp } from '@tutti/test-kit';
import {
  closeDaemons,
  startTestDaemon,
  type TestDaemon,
} from '@tutti/test-kit/reliability/in-process-daemon';
import { descendantsOf, survivors } from '@tutti/test-kit/proc-tree';
import { keepAliveAgent, type RawAnswer, send } from '@tutti/test-kit/reliability/raw-http';

const ROUNDS = 100;
const CREDENTIAL = 'kill-test-credential-9f3a71';
/** Bound on one in-flight call's answer after its upstream died (a hang fails the round). */
const ANSWER_BOUND_MS = 20_000;

let test: TestDaemon;
let token: string;
const agent = keepAliveAgent(4);

beforeAll(async () => {
  test = await startTestDaemon({ backoff: { initialMs: 5, maxMs: 20 } });
  const path = await writeRelease({ key: 'k', serverArgs: ['--spawn-child'], apiKeyEnv: 'K_KEY' });
  expect((await test.control('POST', '/v1/connectors/install', { path })).status).toBe(200);
  const auth = await test.control('PUT', '/v1/connectors/k/credentials', { secret: CREDENTIAL });
  expect(auth.body.authReady).toBe(true);
  token = await test.sessionToken('killer');
});

afterAll(async () => {
  agent.destroy();
  await closeDaemons();
  await cleanUp();
});

function call(id: number, name: string, args: Record<string, unknown>): Promise<RawAnswer> {
  const url = new URL(test.daemon.mcpUrl);
  return send(
    Number(url.port),
    {
      method: 'POST',
      path: url.pathname,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    },
    agent,
    ANSWER_BOUND_MS,
  );
}

function status(): ConnectorStatus {
  return test.daemon.runtime.status().find((entry) => entry.key === 'k')!;
}

/** Resolves with the serving status once `k` is ready at a generation above `after`. */
async function readyAfter(after: number): Promise<ConnectorStatus | undefined> {
  for (let i = 0; i < 2_000; i++) {
    const now = status();
    if (now.state === 'ready' && (now.generation ?? 0) > after && now.pid !== undefined) return now;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}

/** Upstream calls the daemon has sent so far (from /metrics). */
async function callsSent(): Promise<number> {
  const { body } = await test.control('GET', '/metrics');
  const match = /tutti_connector_tool_calls_total\{connector="k"\} (\d+)/.exec(body as string);
  return match ? Number(match[1]) : 0;
}

/** Waits until the daemon has handed call number `count` to the upstream. */
async function inFlight(count: number): Promise<boolean> {
  for (let i = 0; i < 1_000; i++) {
    if ((await callsSent()) >= count) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

function answerKind(answer: RawAnswer): string {
  if (answer.failure) return `no answer: ${answer.failure}`;
  if (answer.status !== 200) return `status ${answer.status}`;
  const message = JSON.parse(answer.body);
  if (message.error && typeof message.error.code === 'number') return 'json-rpc error';
  if (message.result?.isError === true) return 'tool error';
  return `result ${answer.body.slice(0, 100)}`;
}

describe('an upstream killed mid-call', () => {
  it(`answers the call, restarts the route and leaves no process, ${ROUNDS} times`, async () => {
    const kinds = new Map<string, number>();
    const problems: string[] = [];
    let sent = await callsSent();
    let current = status();
    const seenPids: number[] = [];
    for (let round = 1; round <= ROUNDS && problems.length < 5; round++) {
      const pid = current.pid!;
      const group = [pid, ...descendantsOf(pid)];
      seenPids.push(...group);
      const sleeping = call(round, 'k_sleep', { ms: 600_000 });
      sent++;
      if (!(await inFlight(sent)))
        problems.push(`round ${round}: the call never reached the upstream`);
      let crashCall: Promise<RawAnswer> | undefined;
      if (round % 2 === 0) {
        process.kill(pid, 'SIGKILL');
      } else {
        crashCall = call(-round, 'k_crash', { code: 7 });
        sent++;
      }
      const answers = [await sleeping, ...(crashCall ? [await crashCall] : [])];
      for (const answer of answers) {
        const kind = answerKind(answer);
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        if (kind !== 'json-rpc error' && kind !== 'tool error')
          problems.push(`round ${round}: ${kind}`);
      }
      const back = await readyAfter(current.generation ?? 0);
      if (!back) {
        problems.push(`round ${round}: the route did not come back (${JSON.stringify(status())})`);
        break;
      }
      if (back.pid === pid) problems.push(`round ${round}: the same pid serves again`);
      const left = await survivors(group);
      if (left.length > 0 || isProcessGroupAlive(pid)) {
        problems.push(`round ${round}: processes ${left.join(',')} of group ${pid} still run`);
      }
      sent = await callsSent();
      current = back;
    }
    expect(problems).toEqual([]);
    expect(status().restarts).toBe(ROUNDS);
    expect([...kinds.keys()].sort()).toEqual(['json-rpc error']);

    const echo = await call(0, 'k_echo', { after: 'kills' });
    expect(JSON.parse(echo.body).result.content[0].text).toBe('{"after":"kills"}');
    const { body } = await test.control('GET', '/debug/registry');
    expect(body.events.filter((event: { kind: string }) => event.kind === 'crashed')).toHaveLength(
      ROUNDS,
    );

    const lastGroup = [current.pid!, ...descendantsOf(current.pid!)];
    const reaper = test.daemon.supervisor.reaperPid;
    await closeDaemons();
    expect(await survivors([...seenPids, ...lastGroup, ...(reaper ? [reaper] : [])])).toEqual([]);
    const logs = test.logLines.join('\n');
    expect(logs).toContain('connector crashed');
    for (const secret of [token, CREDENTIAL, test.daemon.info.controlToken]) {
      expect(logs.includes(secret)).toBe(false);
    }
  }, 170_000);
});
