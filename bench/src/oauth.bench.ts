/**
 * Calls during token refreshes: a real `tuttid` signed in to two remote connectors, each
 * behind its own oidc-provider and a JWT-checking MCP server: `short`, whose access tokens
 * live 2 s (the daemon refreshes every second or so, under the load), and `long`, whose
 * tokens outlive the run (no refresh: the baseline). 16 calls in flight through the
 * `connector` server, chunks of each connector interleaved so drifting machine load hits
 * both alike. Reports failed calls (target 0), the refreshes made, calls/s and p50/p99 with
 * refreshes beside without: what a refresh adds. `BENCH_QUICK=1`: fewer, shorter chunks.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type OidcServer, startOidcServer } from '@tutti/test-kit/oauth/oidc-server';
import { type ProtectedMcp, startProtectedMcp } from '@tutti/test-kit/oauth/protected-mcp';
import type { RequestConnection } from './clients/connection.js';
import { connectRawHttp } from './clients/raw-http.js';
import { benchDir } from './lib/daemon-home.js';
import { startTuttid, type Tuttid } from './lib/daemon-process.js';
import { QUICK, summarize } from './lib/measure-calls.js';
import { controlClient } from './lib/upgrade-control.js';
import type { BenchResult, Row } from './types.js';

const IN_FLIGHT = 16;
const PLAN = QUICK ? { chunks: 2, chunkMs: 2_500 } : { chunks: 6, chunkMs: 3_000 };

/** One signed-in account: its authorization server and MCP server. */
interface Account {
  readonly key: string;
  readonly as: OidcServer;
  readonly mcp: ProtectedMcp;
}

/** The calls of one chunk of the load. */
interface ChunkResult {
  readonly samples: number[];
  failed: number;
  readonly reasons: string[];
  readonly ms: number;
}

async function account(key: string, ttlSeconds: number): Promise<Account> {
  const as = await startOidcServer({ accessTokenTtl: ttlSeconds });
  const mcp = await startProtectedMcp({ issuer: as.issuer });
  return { key, as, mcp };
}

async function writeAccountRelease(dir: string, { key, mcp }: Account): Promise<string> {
  const folder = join(dir, key);
  await mkdir(folder, { recursive: true });
  await writeFile(
    join(folder, 'tutti-connector.json'),
    JSON.stringify({
      key,
      name: `Account ${key}`,
      description: 'A remote MCP server behind an OAuth sign-in.',
      version: '1.0.0',
      mcp: { url: mcp.url },
      auth: { kind: 'oauth2' },
    }),
  );
  return folder;
}

/** `inFlight` workers calling `tool` back to back for `ms`; every answer checked. */
async function chunk(client: RequestConnection, tool: string, ms: number): Promise<ChunkResult> {
  const result: ChunkResult = { samples: [], failed: 0, reasons: [], ms };
  const end = performance.now() + ms;
  let seq = 0;
  const worker = async (index: number) => {
    while (performance.now() < end) {
      const text = `${index}-${++seq}`;
      const t0 = performance.now();
      let problem: string | undefined;
      try {
        const answer = await client.call(tool, { text });
        if (answer.isError || answer.content?.[0]?.text !== `echo:${text}`) {
          problem = `unexpected answer: ${JSON.stringify(answer).slice(0, 200)}`;
        }
      } catch (error) {
        problem = (error as Error).message;
      }
      if (problem === undefined) result.samples.push(performance.now() - t0);
      else {
        result.failed += 1;
        if (result.reasons.length < 5) result.reasons.push(problem);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => worker(i)));
  return result;
}

const refreshes = (as: OidcServer) =>
  as.events.filter((event) => event === 'refresh_token.consumed').length;

/** The OAuth refresh bench. */
export default async function oauthBench(): Promise<BenchResult> {
  const dir = await benchDir('tutti-bench-oauth-');
  const accounts: Account[] = [];
  let daemon: Tuttid | undefined;
  let client: RequestConnection | undefined;
  try {
    accounts.push(await account('short', 2), await account('long', 3_600));
    const home = join(dir.dir, 'home');
    await mkdir(home);
    daemon = await startTuttid(home, { extraArgs: ['--credential-store', 'file'] });
    const api = await controlClient(home, daemon.ready);
    for (const each of accounts) {
      const path = await writeAccountRelease(dir.dir, each);
      const installed = await api.control('POST', '/v1/connectors/install', { path, wait: true });
      if (installed.body?.runtime?.state !== 'needs-auth') {
        throw new Error(`${each.key}: installed as ${installed.body?.runtime?.state}`);
      }
      const begun = await api.control('POST', `/v1/connectors/${each.key}/authorize`);
      const callback = await each.as.signIn(begun.body.authorizationUrl);
      const page = await fetch(callback);
      if (page.status !== 200) throw new Error(`${each.key}: the callback answered ${page.status}`);
    }
    for (let i = 0; ; i += 1) {
      const { body } = await api.control('GET', '/v1/connectors');
      const states = (body.connectors as { runtime?: { state?: string } }[]).map(
        (connector) => connector.runtime?.state,
      );
      if (states.every((state) => state === 'ready')) break;
      if (i > 600) throw new Error(`not ready after the sign-ins: ${states.join(', ')}`);
      await sleep(50);
    }
    client = await connectRawHttp(await api.binding(dir.dir));
    const [short, long] = accounts as [Account, Account];
    // Warm-up on both, then interleaved chunks.
    await chunk(client, 'short_echo', 1_000);
    await chunk(client, 'long_echo', 1_000);
    const before = { short: refreshes(short.as), long: refreshes(long.as) };
    const withRefresh: ChunkResult[] = [];
    const without: ChunkResult[] = [];
    for (let i = 0; i < PLAN.chunks; i += 1) {
      withRefresh.push(await chunk(client, 'short_echo', PLAN.chunkMs));
      without.push(await chunk(client, 'long_echo', PLAN.chunkMs));
    }
    const made = {
      short: refreshes(short.as) - before.short,
      long: refreshes(long.as) - before.long,
    };
    const stats = (chunks: ChunkResult[]) => {
      const samples = chunks.flatMap((c) => c.samples);
      const failed = chunks.reduce((sum, c) => sum + c.failed, 0);
      const ms = chunks.reduce((sum, c) => sum + c.ms, 0);
      return { latency: summarize(samples), failed, callsPerSec: (samples.length / ms) * 1000 };
    };
    const during = stats(withRefresh);
    const baseline = stats(without);
    for (const reason of [...withRefresh, ...without].flatMap((c) => c.reasons)) {
      console.error(`oauth: ${reason}`);
    }
    console.error(
      `oauth: ${made.short} refreshes under load (${made.long} on the baseline account), ${during.failed + baseline.failed} failed calls`,
    );
    const group = `calls during token refreshes (${IN_FLIGHT} in flight)`;
    const rows: Row[] = [
      {
        group,
        name: 'p50 with refreshes',
        value: during.latency.p50,
        unit: 'ms',
        baseline: { name: 'p50 without', value: baseline.latency.p50 },
      },
      {
        group,
        name: 'p99 with refreshes',
        value: during.latency.p99,
        unit: 'ms',
        baseline: { name: 'p99 without', value: baseline.latency.p99 },
      },
      {
        group,
        name: 'calls/s with refreshes',
        value: during.callsPerSec,
        unit: 'calls/s',
        baseline: { name: 'calls/s without', value: baseline.callsPerSec },
      },
      { group, name: 'refreshes under the load', value: made.short, unit: 'refreshes' },
      { group, name: 'failed calls', value: during.failed + baseline.failed, unit: 'calls' },
    ];
    return {
      rows,
      targets: [
        {
          client: 'tuttid',
          target: 'no call fails while tokens are refreshed',
          measured: during.failed + baseline.failed,
          unit: 'calls',
          goal: '0',
          met: during.failed + baseline.failed === 0 && made.short > 0,
        },
      ],
    };
  } finally {
    await client?.close();
    await daemon?.stop();
    for (const { as, mcp } of accounts) await Promise.all([mcp.close(), as.close()]);
    await dir.remove();
  }
}
