/**
 * What relaying an upstream's elicitation through the daemon adds to one round trip, side
 * by side in one run. The upstream is the test kit's stdio fixture; its `confirm_delete`
 * asks `{confirm: boolean}` and answers `{"deleted":true}` once confirmed. Baseline: an SDK
 * v2 client on the fixture's stdio, answering the question itself. Measured: the same
 * client over HTTP through the `connector` server (a child process, the fixture its
 * upstream), on MCP 2025 (the question on the call's response stream, the answer POSTed
 * back) and on 2026-07-28 (an `input_required` result, then the retry with the answer). The
 * daemon's hop without a question (`echo` both ways) is measured too, so the relay's own
 * share shows. Goal: the 2025 relay's p50 at most 5 ms above the direct one. Every call
 * checks its answer and that the client was asked.
 */
import { STDIO_SERVER } from '@tutti/test-kit';
import { connectElicitingHttp, connectElicitingStdio } from './clients/eliciting.js';
import type { ElicitingConnection } from './clients/eliciting.js';
import { BUDGET, latencySamples, summarize, warmUp } from './lib/measure-calls.js';
import { startConnector } from './lib/targets.js';
import type { BenchResult, Row, Target } from './types.js';

/** Sequential calls per round: an elicitation round trip is slower than an echo. */
const CALLS = Math.min(BUDGET.latencyCalls, 400);
const GOAL_MS = 5;

/** One measured way: its client, and the tool names it calls. */
interface Way {
  readonly name: string;
  readonly connection: ElicitingConnection;
  readonly confirm: string;
  readonly echo: string;
}

/** A call that must answer `{"deleted":true}` after one question. */
function confirmCall(way: Way): () => Promise<void> {
  return async () => {
    const before = way.connection.asked();
    const result = await way.connection.call(way.confirm, {});
    const text = result.content?.[0]?.text ?? '';
    if (!text.includes('"deleted":true') || way.connection.asked() !== before + 1) {
      throw new Error(`${way.name}: confirm_delete answered ${text.slice(0, 200)}`);
    }
  };
}

function echoCall(way: Way): () => Promise<void> {
  return async () => {
    const result = await way.connection.call(way.echo, { message: 'hi' });
    if (!result.content?.[0]?.text?.includes('hi')) throw new Error(`${way.name}: echo failed`);
  };
}

/** The p50 (ms) of `call` over the rounds, interleaved with the other ways by the caller. */
async function sample(call: () => Promise<void>, into: number[]): Promise<void> {
  await latencySamples(call, into, { calls: CALLS, maxMs: BUDGET.chunkMs * 4 });
}

/** The elicitation bench. */
export default async function elicitationBench(): Promise<BenchResult> {
  const server = await startConnector({ upstream: 'fixture' });
  const ways: Way[] = [];
  try {
    ways.push({
      name: 'direct (stdio, the client answers)',
      connection: await connectElicitingStdio(process.execPath, [STDIO_SERVER]),
      confirm: 'confirm_delete',
      echo: 'echo',
    });
    for (const modern of [false, true]) {
      ways.push({
        name: `through the daemon, ${modern ? '2026-07-28 (input_required)' : '2025 (SSE relay)'}`,
        connection: await connectElicitingHttp(server, { modern }),
        confirm: 'fixture_confirm_delete',
        echo: 'fixture_echo',
      });
    }
    const confirm = ways.map(() => [] as number[]);
    const echo = ways.map(() => [] as number[]);
    for (const way of ways) {
      await warmUp(confirmCall(way), 100);
      await warmUp(echoCall(way), 100);
    }
    // Rounds interleave the ways, so a slow moment of the machine hits them all alike.
    for (let round = 0; round < BUDGET.rounds; round += 1) {
      for (const [i, way] of ways.entries()) {
        await sample(confirmCall(way), confirm[i]!);
        await sample(echoCall(way), echo[i]!);
      }
    }
    const rows: Row[] = [];
    const targets: Target[] = [];
    const direct = summarize(confirm[0]!);
    const directEcho = summarize(echo[0]!);
    for (const [i, way] of ways.entries()) {
      const asked = summarize(confirm[i]!);
      const plain = summarize(echo[i]!);
      const base = i === 0 ? undefined : { name: ways[0]!.name, value: direct.p50 };
      rows.push({
        group: 'elicitation round trip p50',
        name: way.name,
        value: asked.p50,
        unit: 'ms',
        baseline: base,
      });
      rows.push({
        group: 'elicitation round trip p99',
        name: way.name,
        value: asked.p99,
        unit: 'ms',
      });
      rows.push({
        group: 'echo p50 (the hop alone)',
        name: way.name,
        value: plain.p50,
        unit: 'ms',
        baseline: i === 0 ? undefined : { name: ways[0]!.name, value: directEcho.p50 },
      });
      if (i === 0) continue;
      const added = asked.p50 - direct.p50;
      rows.push({ group: 'added by the daemon, p50', name: way.name, value: added, unit: 'ms' });
      targets.push({
        client: way.name,
        target: 'elicitation round trip p50 above direct',
        measured: Math.round(added * 100) / 100,
        unit: 'ms',
        goal: `<= ${GOAL_MS}`,
        met: added <= GOAL_MS,
      });
    }
    return { rows, targets };
  } finally {
    for (const way of ways) await way.connection.close().catch(() => {});
    await server.stop();
  }
}
