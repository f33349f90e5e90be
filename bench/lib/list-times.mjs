/** Timing of a full paginated `tools/list` and of its first page, through one client. */
import { BUDGET, latencySamples, QUICK, summarize, warmUp } from './measure-calls.mjs';

/** p50/p99 of a full paginated tools/list (and its first page) through `client`. */
export async function listTimes(client, expected) {
  const listAll = async () => {
    let cursor;
    let count = 0;
    do {
      const result = await client.request('tools/list', cursor ? { cursor } : {});
      count += result.tools.length;
      cursor = result.nextCursor;
    } while (cursor);
    if (count !== expected) throw new Error(`tools/list returned ${count} tools, not ${expected}`);
  };
  const firstPage = () => client.request('tools/list', {});
  await warmUp(listAll, QUICK ? 3 : 10);
  const all = [];
  const first = [];
  for (let round = 0; round < BUDGET.rounds; round += 1) {
    await latencySamples(listAll, all, { calls: 200 });
    await latencySamples(firstPage, first, { calls: 500 });
  }
  return { all: summarize(all), first: summarize(first) };
}
