/**
 * Agent session benchmarks on a real `tuttid` and the real agents (opencode over ACP,
 * `codex app-server`, Claude Code through the Agent SDK, claude-agent-acp): (1) the daemon's
 * added time to start a bound session, from the session request to the agent's first
 * `tools/list` on the `connector` server, against the same agent started directly with the
 * same server in a plain MCP config, in interleaved rounds (ABBA), split into the daemon's
 * own steps and the agent's (the session's `startSteps`); (2) the time from a registry
 * commit to the live agent's re-list. Both ends of each figure are read off the daemon
 * itself (`toolsListed.at` of the session, `at` of the `tools.changed` event) or this
 * process, both on the wall clock of one machine. `BENCH_QUICK=1` runs fewer rounds.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import {
  type Binding,
  type Control,
  controlOf,
  controlToken,
  listedSession,
  type StartAnswer,
} from './lib/daemon-control.js';
import { writeStdioReleases } from './lib/daemon-home.js';
import { startTuttid, type Tuttid } from './lib/daemon-process.js';
import { lineAgent } from './lib/line-agent.js';
import { ROOT_BIN as BIN } from './lib/paths.js';
import type { BenchResult, Row, Target } from './types.js';

type Env = Record<string, string>;

/** How the daemon starts an agent, and how the bench starts the same agent directly. */
interface Agent {
  readonly request: Record<string, unknown>;
  direct(binding: Binding): Promise<() => void | Promise<void>>;
}
const ROUNDS = process.env.BENCH_QUICK ? 2 : 6;
const OPENCODE_OFFLINE = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_SHARE: '1',
};
/** Steps of `startSteps` that are the agent's own time (its process start and its answers). */
const AGENT_STEPS = new Set(['spawn', 'handshake', 'open']);
/** How long a live agent may take to re-list before it counts as not refreshing live. */
const RELIST_TIMEOUT_MS = 15_000;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

/** An ACP agent started directly: `initialize`, then `session/new` with the binding. */
function directAcpStart(command: string, args: string[], env: Env, cwd: string) {
  return async (binding: Binding) => {
    const agent = lineAgent(command, args, env, cwd, true);
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const headers = Object.entries(binding.headers).map(([name, value]) => ({ name, value }));
    await agent.request('session/new', {
      cwd,
      mcpServers: [{ type: 'http', name: 'connector', url: binding.url, headers }],
    });
    return () => agent.stop();
  };
}

/** The agents: how the daemon starts each, and how each is started directly. */
function agentsOf(env: Env, cwd: string, scratch: string): Record<string, Agent> {
  const opencodeEnv = { ...env, ...OPENCODE_OFFLINE };
  const claudeEnv = { ...env, IS_SANDBOX: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  return {
    opencode: {
      request: {
        provider: 'opencode',
        env: opencodeEnv,
        launch: { command: join(BIN, 'opencode'), args: ['acp'] },
      },
      direct: directAcpStart(join(BIN, 'opencode'), ['acp'], opencodeEnv, cwd),
    },
    codex: {
      request: { provider: 'codex', env, launch: { command: join(BIN, 'codex') } },
      async direct(binding: Binding) {
        const home = await mkdtemp(join(scratch, 'codex-home-'));
        await writeFile(
          join(home, 'config.toml'),
          `[mcp_servers.connector]\nurl = "${binding.url}"\nhttp_headers = { Authorization = "${binding.headers.Authorization}" }\n`,
          { mode: 0o600 },
        );
        const agent = lineAgent(
          join(BIN, 'codex'),
          ['app-server'],
          { ...env, CODEX_HOME: home },
          cwd,
          false,
        );
        await agent.request('initialize', {
          clientInfo: { name: 'bench', title: null, version: '1' },
          capabilities: {},
        });
        agent.notify('initialized', {});
        await agent.request('thread/start', { cwd });
        return () => agent.stop();
      },
    },
    'claude-sdk': {
      request: { provider: 'claude-sdk', env: claudeEnv },
      async direct(binding: Binding) {
        const never = (async function* () {
          await new Promise(() => {});
        })();
        const claude = query({
          prompt: never,
          options: {
            cwd,
            env: claudeEnv,
            settingSources: [],
            strictMcpConfig: true,
            mcpServersDelivery: 'initialize',
            mcpServers: { connector: { type: 'http', url: binding.url, headers: binding.headers } },
          },
        });
        await claude.initializationResult();
        return () => claude.close();
      },
    },
    'claude-agent-acp': {
      request: {
        provider: 'acp',
        env: claudeEnv,
        launch: { command: join(BIN, 'claude-agent-acp') },
      },
      direct: directAcpStart(join(BIN, 'claude-agent-acp'), [], claudeEnv, cwd),
    },
  };
}

/** The `at` of the next `tools.changed` event on the daemon's event stream. */
async function nextToolsChangedAt(
  daemon: Tuttid,
  home: string,
  start: () => Promise<unknown>,
): Promise<number> {
  const token = await controlToken(home);
  const abort = new AbortController();
  const response = await fetch(`${daemon.ready.controlUrl}/v1/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  const body = response.body;
  if (!body) throw new Error('GET /v1/events answered without a body');
  const reading = (async () => {
    let buffer = '';
    for await (const chunk of body) {
      buffer += Buffer.from(chunk).toString('utf8');
      for (const line of buffer.split('\n')) {
        if (!line.startsWith('data: ')) continue;
        const event = JSON.parse(line.slice(6)) as { type?: string; at: string };
        if (event.type === 'tools.changed') return Date.parse(event.at);
      }
    }
    throw new Error('the event stream ended');
  })();
  await start();
  const at = await reading;
  abort.abort();
  return at;
}

/** One start through the daemon: its time to the first list, and its steps. */
interface DaemonStart {
  readonly total: number;
  readonly steps: Readonly<Record<string, number>>;
  /** Request to answer, minus the steps: HTTP, validation, the binding check. */
  readonly outsideSteps: number;
  /** Answer to the first `tools/list`: the agent connecting its MCP client. */
  readonly afterAnswer: number;
}

async function startThroughDaemon(
  control: Control,
  body: Record<string, unknown>,
): Promise<DaemonStart> {
  const t0 = Date.now();
  const { session } = await control<StartAnswer>('POST', '/v1/sessions', body);
  const answered = Date.now();
  const listed = await listedSession(control, session.id);
  await control('DELETE', `/v1/sessions/${session.id}`);
  const steps = listed.startSteps ?? {};
  return {
    total: listed.toolsListed.at - t0,
    steps,
    outsideSteps: answered - t0 - sum(Object.values(steps)),
    afterAnswer: listed.toolsListed.at - answered,
  };
}

async function startDirectly(control: Control, agent: Agent, name: string, cwd: string) {
  const prepared = await control<StartAnswer>('POST', '/v1/sessions', {
    workspaceId: `bench-direct-${name}`,
    cwd,
  });
  const binding = prepared.runtime.mcpServers[0];
  if (!binding) throw new Error('sessions: the prepared runtime has no MCP server');
  const t1 = Date.now();
  const stop = await agent.direct(binding);
  try {
    const listed = await listedSession(control, prepared.session.id);
    return listed.toolsListed.at - t1;
  } finally {
    await stop();
    await control('DELETE', `/v1/sessions/${prepared.session.id}`);
  }
}

/** The sessions bench. */
export default async function sessionsBench(): Promise<BenchResult> {
  const loadBefore = loadavg()[0]!;
  const scratch = await mkdtemp(join(tmpdir(), 'tutti-bench-sessions-'));
  const home = join(scratch, 'home');
  const cwd = scratch;
  const daemon = await startTuttid(home, { extraArgs: [] });
  try {
    const control = await controlOf(daemon, home);
    const [release] = await writeStdioReleases(join(scratch, 'releases'), 1, 5);
    if (!release) throw new Error('sessions: no release was written');
    await control('POST', '/v1/connectors/install', { path: release });
    const userHome = await mkdtemp(join(scratch, 'user-'));
    const env = {
      PATH: `${BIN}:${process.env.PATH}`,
      HOME: userHome,
      XDG_CONFIG_HOME: userHome,
      XDG_DATA_HOME: userHome,
      XDG_STATE_HOME: userHome,
      XDG_CACHE_HOME: userHome,
    };
    const agents = agentsOf(env, cwd, scratch);
    const rows: Row[] = [];
    const targets: Target[] = [];
    for (const [name, agent] of Object.entries(agents)) {
      const body = { workspaceId: `bench-${name}`, cwd, ...agent.request };
      const throughDaemon: DaemonStart[] = [];
      const direct: number[] = [];
      // One start each way first: the agents' first start on a fresh home writes caches.
      await startThroughDaemon(control, body);
      await startDirectly(control, agent, name, cwd);
      for (let round = 0; round < ROUNDS; round += 1) {
        if (round % 2 === 0) {
          throughDaemon.push(await startThroughDaemon(control, body));
          direct.push(await startDirectly(control, agent, name, cwd));
        } else {
          direct.push(await startDirectly(control, agent, name, cwd));
          throughDaemon.push(await startThroughDaemon(control, body));
        }
      }
      rows.push(...startRows(name, throughDaemon, direct));
      const added = median(throughDaemon.map((start, i) => start.total - direct[i]!));
      targets.push({
        client: name,
        target: 'added start time (median of paired rounds)',
        measured: added,
        unit: 'ms',
        goal: '<= 100 ms',
        met: added <= 100,
      });
    }

    // Commit to re-list, for every agent: those that re-list live within the timeout count.
    let extra = 0;
    for (const [name, agent] of Object.entries(agents)) {
      const samples: number[] = [];
      const { session } = await control<StartAnswer>('POST', '/v1/sessions', {
        workspaceId: `bench-live-${name}`,
        cwd,
        ...agent.request,
      });
      await listedSession(control, session.id);
      let live = true;
      for (let round = 0; round < ROUNDS && live; round += 1) {
        extra += 1;
        const [next] = await writeStdioReleases(join(scratch, `more-${extra}`), 1, 3);
        if (!next) throw new Error('sessions: no release was written');
        const manifest = JSON.parse(await readFile(join(next, 'tutti-connector.json'), 'utf8'));
        manifest.key = `more${extra}`;
        await writeFile(join(next, 'tutti-connector.json'), JSON.stringify(manifest));
        const committedAt = await nextToolsChangedAt(daemon, home, () =>
          control('POST', '/v1/connectors/install', { path: next }),
        );
        try {
          const listed = await listedSession(control, session.id, committedAt, RELIST_TIMEOUT_MS);
          samples.push(listed.toolsListed.at - committedAt);
        } catch {
          live = false;
        }
      }
      await control('DELETE', `/v1/sessions/${session.id}`);
      if (!live) {
        rows.push({
          group: 'registry commit to the live agent re-list',
          name: `${name}: no re-list within ${RELIST_TIMEOUT_MS / 1000} s (refreshes at its next turn or restart)`,
          value: Number.NaN,
          unit: 'ms',
        });
        continue;
      }
      const ms = median(samples);
      rows.push({
        group: 'registry commit to the live agent re-list',
        name,
        value: ms,
        unit: 'ms',
      });
      targets.push({
        client: name,
        target: 'commit to re-list',
        measured: ms,
        unit: 'ms',
        goal: '<= 1000 ms',
        met: ms <= 1000,
      });
    }
    rows.push(
      {
        group: 'machine',
        name: '1-min load average, start of the sessions bench',
        value: loadBefore,
        unit: 'load',
      },
      {
        group: 'machine',
        name: '1-min load average, end of the sessions bench',
        value: loadavg()[0]!,
        unit: 'load',
      },
    );
    return { rows, targets };
  } finally {
    await daemon.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The rows of one agent's starts: totals side by side, then where the daemon's time went. */
function startRows(name: string, throughDaemon: DaemonStart[], direct: number[]): Row[] {
  const group = 'session start (request to first tools/list), p50';
  const directMs = median(direct);
  const rows: Row[] = [
    { group, name: `${name} started directly`, value: directMs, unit: 'ms' },
    {
      group,
      name: `${name} through tuttid`,
      value: median(throughDaemon.map((start) => start.total)),
      unit: 'ms',
      baseline: { name: `${name} started directly`, value: directMs },
    },
    {
      group,
      name: `${name} added (through tuttid - direct, median of paired rounds)`,
      value: median(throughDaemon.map((start, i) => start.total - direct[i]!)),
      unit: 'ms',
    },
  ];
  const names = [...new Set(throughDaemon.flatMap((start) => Object.keys(start.steps)))];
  const step = (key: string) => median(throughDaemon.map((start) => start.steps[key] ?? 0));
  const own = names.filter((key) => !AGENT_STEPS.has(key));
  const agentSteps = names.filter((key) => AGENT_STEPS.has(key));
  const steps = 'session start through tuttid: where the time goes, p50';
  rows.push(
    {
      group: steps,
      name: `${name} daemon's own steps (${own.join(', ')})`,
      value: median(throughDaemon.map((start) => sum(own.map((key) => start.steps[key] ?? 0)))),
      unit: 'ms',
    },
    ...own.map((key) => ({
      group: steps,
      name: `${name} step ${key}`,
      value: step(key),
      unit: 'ms',
    })),
    {
      group: steps,
      name: `${name} request handling outside the steps (HTTP, checks, answer)`,
      value: median(throughDaemon.map((start) => start.outsideSteps)),
      unit: 'ms',
    },
    {
      group: steps,
      name: `${name} agent's steps (${agentSteps.join(', ')})`,
      value: median(
        throughDaemon.map((start) => sum(agentSteps.map((key) => start.steps[key] ?? 0))),
      ),
      unit: 'ms',
    },
    ...agentSteps.map((key) => ({
      group: steps,
      name: `${name} step ${key}`,
      value: step(key),
      unit: 'ms',
    })),
    {
      group: steps,
      name: `${name} answer to first tools/list (the agent's MCP client connecting)`,
      value: median(throughDaemon.map((start) => start.afterAnswer)),
      unit: 'ms',
    },
  );
  return rows;
}
