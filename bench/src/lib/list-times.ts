/** Timing of a full paginated `tools/list` and of its first page, through one client. */
import { BUDGET, latencySamples, QUICK, type Summary, summarize, warmUp } from './measure-calls.js';

/** A client that sends one JSON-RPC request and resolves to its result. */
export interface RequestClient {
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
}

/** p50/p99 of a full paginated tools/list (and its first page) through `client`. */
export async function listTimes(
  client: RequestClient,
  expected: number,
): Promise<{ all: Summary; first: Summary }> {
  const listAll = async () => {
    let cursor: string | undefined;
    let count = 0;
    do {
      const result = (await client.request('tools/list', cursor ? { cursor } : {})) as {
        tools: unknown[];
        nextCursor?: string;
      };
      count += result.tools.length;
      cursor = result.nextCursor;
    } while (cursor);
    if (count !== expected) throw new Error(`tools/list returned ${count} tools, not ${expected}`);
  };
  const firstPage = () => client.request('tools/list', {});
  await warmUp(listAll, QUICK ? 3 : 10);
  const all: number[] = [];
  const first: number[] = [];
  for (let round = 0; round < BUDGET.rounds; round += 1) {
    await latencySamples(listAll, all, { calls: 200 });
    await latencySamples(firstPage, first, { calls: 500 });
  }
  return { all: summarize(all), first: summarize(first) };
}
