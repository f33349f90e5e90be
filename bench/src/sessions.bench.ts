/**
 * Agent session benchmarks on a real `tuttid` and the real agents: (1) the daemon's added
 * time to start a bound session, from the session request to the agent's first
 * `tools/list` on the `connector` server, against the same agent started directly with the
 * same server in a plain MCP config, rounds interleaved; (2) the time from a registry
 * commit to the live agent's re-list, for the agents that refresh live. Both ends are read
 * off the daemon itself (`toolsListed.at` of the session, `at` of the `tools.changed`
 * event), so the clocks agree. `BENCH_QUICK=1` runs fewer rounds.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { writeStdioReleases } from './lib/daemon-home.js';
import { startTuttid, type Tuttid } from './lib/daemon-process.js';
import { ROOT_BIN as BIN } from './lib/paths.js';
import { spawnGroup } from './lib/processes.js';
import type { BenchResult, Row, Target } from './types.js';

type Env = Record<string, string>;

/** The `connector` server binding of a prepared runtime. */
interface Binding {
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** A session as `GET /v1/sessions` lists it. */
interface SessionInfo {
  readonly id: string;
  readonly toolsListed?: { readonly at: number };
}

/** Answers of the control API the bench reads. */
interface StartAnswer {
  readonly session: SessionInfo;
  readonly runtime: { readonly mcpServers: readonly Binding[] };
}

/** One request to the control API; resolves to its JSON answer. */
type Control = <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;

/** How the daemon starts an agent, and how the bench starts the same agent directly. */
interface Agent {
  readonly request: Record<string, unknown>;
  direct(binding: Binding): Promise<() => void | Promise<void>>;
}
const ROUNDS = process.env.BENCH_QUICK ? 2 : 5;
const OPENCODE_OFFLINE = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_SHARE: '1',
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The control API of a started daemon. */
async function controlToken(home: string): Promise<string> {
  const info = JSON.parse(await readFile(join(home, 'run', 'daemon.json'), 'utf8')) as {
    controlToken: string;
  };
  return info.controlToken;
}

/** The control API of a started daemon. */
async function controlOf(daemon: Tuttid, home: string): Promise<Control> {
  const token = await controlToken(home);
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${daemon.ready.controlUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as T;
    if (response.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
    return answer;
  };
}

/** When the session's agent was first answered a `tools/list` (ms since the epoch). */
async function firstListAt(control: Control, id: string): Promise<number> {
  for (let i = 0; i < 1200; i += 1) {
    const { sessions } = await control<{ sessions: SessionInfo[] }>('GET', '/v1/sessions');
    const at = sessions.find((session) => session.id === id)?.toolsListed?.at;
    if (at) return at;
    await sleep(5);
  }
  throw new Error(`session ${id} never listed its tools`);
}

/** A process in its own group with JSON-RPC lines on its stdio; `stop()` stops the group. */
function lineAgent(command: string, args: string[], env: Env, cwd: string, jsonrpc: boolean) {
  const group = spawnGroup(command, args, { env, cwd, stdin: 'pipe', wholeEnv: true });
  const { child } = group;
  const pending = new Map<number, (message: { result?: unknown }) => void>();
  let next = 0;
  if (!child.stdin || !child.stdout) throw new Error(`${command} has no stdio pipes`);
  const stdin = child.stdin;
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      const message = JSON.parse(line) as { id?: number; method?: string; result?: unknown };
      if (message.id !== undefined && message.method === undefined)
        pending.get(message.id)?.(message);
    } catch {}
  });
  return {
    request(method: string, params: Record<string, unknown>): Promise<unknown> {
      const id = ++next;
      stdin.write(
        `${JSON.stringify({ ...(jsonrpc ? { jsonrpc: '2.0' } : {}), id, method, params })}\n`,
      );
      return new Promise((resolve) => pending.set(id, (message) => resolve(message.result)));
    },
    notify: (method: string, params: Record<string, unknown>) =>
      stdin.write(`${JSON.stringify({ method, params })}\n`),
    stop: () => group.stop(),
  };
}

/** The three agents: how the daemon starts each, and how each is started directly. */
function agentsOf(env: Env, cwd: string, scratch: string): Record<string, Agent> {
  return {
    opencode: {
      request: { provider: 'opencode', launch: { command: join(BIN, 'opencode'), args: ['acp'] } },
      async direct(binding: Binding) {
        const agent = lineAgent(
          join(BIN, 'opencode'),
          ['acp'],
          { ...env, ...OPENCODE_OFFLINE },
          cwd,
          true,
        );
        await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const headers = Object.entries(binding.headers).map(([name, value]) => ({ name, value }));
        await agent.request('session/new', {
          cwd,
          mcpServers: [{ type: 'http', name: 'connector', url: binding.url, headers }],
        });
        return () => agent.stop();
      },
    },
    codex: {
      request: { provider: 'codex', launch: { command: join(BIN, 'codex') } },
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
      request: { provider: 'claude-sdk', env: { ...env, IS_SANDBOX: '1' } },
      async direct(binding: Binding) {
        const never = (async function* () {
          await new Promise(() => {});
        })();
        const claude = query({
          prompt: never,
          options: {
            cwd,
            env: { ...env, IS_SANDBOX: '1' },
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

/** The sessions bench. */
export default async function sessionsBench(): Promise<BenchResult> {
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
      const throughDaemon: number[] = [];
      const direct: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const t0 = Date.now();
        const { session } = await control<StartAnswer>('POST', '/v1/sessions', {
          workspaceId: `bench-${name}`,
          cwd,
          env,
          ...agent.request,
        });
        throughDaemon.push((await firstListAt(control, session.id)) - t0);
        await control('DELETE', `/v1/sessions/${session.id}`);

        const prepared = await control<StartAnswer>('POST', '/v1/sessions', {
          workspaceId: `bench-direct-${name}`,
          cwd,
        });
        const t1 = Date.now();
        const binding = prepared.runtime.mcpServers[0];
        if (!binding) throw new Error('sessions: the prepared runtime has no MCP server');
        const stop = await agent.direct(binding);
        direct.push((await firstListAt(control, prepared.session.id)) - t1);
        await stop();
        await control('DELETE', `/v1/sessions/${prepared.session.id}`);
      }
      const daemonMs = median(throughDaemon);
      const directMs = median(direct);
      rows.push(
        {
          group: 'session start (to first tools/list)',
          name: `${name} started directly`,
          value: directMs,
          unit: 'ms',
        },
        {
          group: 'session start (to first tools/list)',
          name: `${name} through tuttid`,
          value: daemonMs,
          unit: 'ms',
          baseline: { name: `${name} started directly`, value: directMs },
        },
      );
      targets.push({
        client: name,
        target: 'added start time',
        measured: daemonMs - directMs,
        unit: 'ms',
        goal: '<= 100 ms',
        met: daemonMs - directMs <= 100,
      });
    }

    // Commit to re-list, for the agents that refresh live.
    let extra = 0;
    for (const name of ['claude-sdk', 'opencode']) {
      const samples: number[] = [];
      const agent = agents[name];
      if (!agent) throw new Error(`sessions: no agent ${name}`);
      const { session } = await control<StartAnswer>('POST', '/v1/sessions', {
        workspaceId: `bench-live-${name}`,
        cwd,
        env,
        ...agent.request,
      });
      await firstListAt(control, session.id);
      for (let round = 0; round < ROUNDS; round += 1) {
        extra += 1;
        const [next] = await writeStdioReleases(join(scratch, `more-${extra}`), 1, 3);
        if (!next) throw new Error('sessions: no release was written');
        const manifest = JSON.parse(await readFile(join(next, 'tutti-connector.json'), 'utf8'));
        manifest.key = `more${extra}`;
        await writeFile(join(next, 'tutti-connector.json'), JSON.stringify(manifest));
        const committedAt = await nextToolsChangedAt(daemon, home, () =>
          control('POST', '/v1/connectors/install', { path: next }),
        );
        let listedAt: number | undefined;
        for (let i = 0; i < 2000 && !listedAt; i += 1) {
          const { sessions } = await control<{ sessions: SessionInfo[] }>('GET', '/v1/sessions');
          const listed = sessions.find((s) => s.id === session.id)?.toolsListed;
          if (listed && listed.at >= committedAt) listedAt = listed.at;
          else await sleep(5);
        }
        if (listedAt === undefined) throw new Error(`${name} did not re-list after the commit`);
        samples.push(listedAt - committedAt);
      }
      await control('DELETE', `/v1/sessions/${session.id}`);
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
    return { rows, targets };
  } finally {
    await daemon.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}
