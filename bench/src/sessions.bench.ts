/**
 * Agent session benchmarks on a real `tuttid` and the real agents (opencode over ACP,
 * `codex app-server`, Claude Code through the Agent SDK, claude-agent-acp): (1) the daemon's
 * added time to start a bound session, from the session request to the agent's first
 * `tools/list` on the `connector` server, against the same agent started directly with the
 * same server in a plain MCP config, and started directly from the daemon's own projection
 * (its config without its start path), in interleaved rounds (ABC, CBA), split into the
 * daemon's own steps and the agent's (the session's `startSteps`); (2) the time from a registry
 * commit to the live agent's re-list. Both ends of each figure are read off the daemon
 * itself (`toolsListed.at` of the session, `at` of the `tools.changed` event) or this
 * process, both on the wall clock of one machine. `BENCH_QUICK=1` runs fewer rounds.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentHomes } from '@tutti/test-kit/agent-env';
import { openEvents } from '@tutti/test-kit/event-stream';
import {
  type Control,
  controlOf,
  controlToken,
  listedSession,
  type StartAnswer,
  sessionOf,
} from './lib/daemon-control.js';
import { writeStdioReleases } from './lib/daemon-home.js';
import { startTuttid, type Tuttid } from './lib/daemon-process.js';
import { type Agent, agentsOf, type Projection } from './lib/session-agents.js';
import { type DaemonStart, startRows, median, sum } from './lib/session-report.js';
import type { BenchResult, Row, Target } from './types.js';

const ROUNDS = process.env.BENCH_QUICK ? 2 : 6;
/** How long a live agent may take to re-list before it counts as not refreshing live. */
const RELIST_TIMEOUT_MS = 15_000;

/**
 * Runs `start` (an install) and reads the daemon's event stream (the kit's reader): the `at`
 * of the next `tools.changed` event, and of the next `session.refreshed` event of session
 * `id` (its refresh strategy done; undefined when none comes within the re-list timeout).
 */
async function commitAndRefresh(
  daemon: Tuttid,
  home: string,
  id: string,
  start: () => Promise<unknown>,
): Promise<{ committedAt: number; refreshedAt: number | undefined }> {
  const events = await openEvents({ ready: daemon.ready, controlToken: await controlToken(home) });
  try {
    await start();
    const within = { timeoutMs: RELIST_TIMEOUT_MS };
    const committed = await events.waitFor((event) => event.type === 'tools.changed', within);
    const refreshed = await events
      .waitFor((event) => event.type === 'session.refreshed' && event.session === id, within)
      .catch(() => undefined);
    return {
      committedAt: Date.parse(String(committed.at)),
      refreshedAt: refreshed && Date.parse(String(refreshed.at)),
    };
  } finally {
    events.close();
  }
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

/** ACP agents must say what they declared in `initialize` for a prepare-mode projection. */
const ACP_DECLARED = { loadSession: true, mcpCapabilities: { http: true } };

/** One start from the daemon's projection, timed from the spawn to the first `tools/list`. */
async function startProjected(control: Control, agent: Agent, name: string, cwd: string) {
  const acp = agent.request.provider === 'opencode' || agent.request.provider === 'acp';
  const { launch: _launch, ...request } = agent.request;
  const prepared = await control<StartAnswer & { projection: Projection }>('POST', '/v1/sessions', {
    ...request,
    mode: 'prepare',
    workspaceId: `bench-projected-${name}`,
    cwd,
    ...(acp ? { agentCapabilities: ACP_DECLARED } : {}),
  });
  const t1 = Date.now();
  const stop = await agent.projected(prepared.projection);
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
  // The agents' HOME and XDG folders, and their cwd.
  const homes = await createAgentHomes();
  const cwd = homes.agentEnv.cwd;
  const daemon = await startTuttid(home, { extraArgs: [] });
  try {
    const control = await controlOf(daemon, home);
    const [release] = await writeStdioReleases(join(scratch, 'releases'), 1, 5);
    if (!release) throw new Error('sessions: no release was written');
    await control('POST', '/v1/connectors/install', { path: release });
    const agents = agentsOf(homes.env, cwd, scratch);
    const rows: Row[] = [];
    const targets: Target[] = [];
    for (const [name, agent] of Object.entries(agents)) {
      const body = { workspaceId: `bench-${name}`, cwd, ...agent.request };
      const throughDaemon: DaemonStart[] = [];
      const direct: number[] = [];
      const projected: number[] = [];
      try {
        const legs = [
          async () => throughDaemon.push(await startThroughDaemon(control, body)),
          async () => direct.push(await startDirectly(control, agent, name, cwd)),
          async () => projected.push(await startProjected(control, agent, name, cwd)),
        ];
        // One start each way first: the agents' first start on a fresh home writes caches.
        for (const leg of legs) await leg();
        throughDaemon.length = direct.length = projected.length = 0;
        for (let round = 0; round < ROUNDS; round += 1) {
          for (const leg of round % 2 === 0 ? legs : [...legs].reverse()) await leg();
        }
        rows.push(...startRows(name, throughDaemon, direct, projected));
        const added = median(throughDaemon.map((start, i) => start.total - direct[i]!));
        targets.push({
          client: name,
          target: 'added start time (median of paired rounds)',
          measured: added,
          unit: 'ms',
          goal: '<= 100 ms',
          met: added <= 100,
        });
      } catch (error) {
        // One agent failing (e.g. timing out under load) leaves the others' figures.
        const message = (error as Error).message.slice(0, 300);
        console.error(`sessions: ${name} failed: ${message}`);
        rows.push({
          group: 'session start (request to first tools/list), p50',
          name: `${name}: failed: ${message}`,
          value: Number.NaN,
          unit: 'ms',
        });
      }
    }

    // Commit to re-list, for every agent: those that re-list live within the timeout count.
    let extra = 0;
    for (const [name, agent] of Object.entries(agents)) {
      const samples: number[] = [];
      const refreshed: number[] = [];
      const { session } = await control<StartAnswer>('POST', '/v1/sessions', {
        workspaceId: `bench-live-${name}`,
        cwd,
        ...agent.request,
      });
      await listedSession(control, session.id);
      let live = true;
      let strategy = 'none';
      for (let round = 0; round < ROUNDS && live; round += 1) {
        extra += 1;
        const [next] = await writeStdioReleases(join(scratch, `more-${extra}`), 1, 3);
        if (!next) throw new Error('sessions: no release was written');
        const manifest = JSON.parse(await readFile(join(next, 'tutti-connector.json'), 'utf8'));
        manifest.key = `more${extra}`;
        await writeFile(join(next, 'tutti-connector.json'), JSON.stringify(manifest));
        const { committedAt, refreshedAt } = await commitAndRefresh(daemon, home, session.id, () =>
          control('POST', '/v1/connectors/install', { path: next }),
        );
        if (refreshedAt !== undefined) refreshed.push(refreshedAt - committedAt);
        try {
          const listed = await listedSession(control, session.id, committedAt, RELIST_TIMEOUT_MS);
          samples.push(listed.toolsListed.at - committedAt);
        } catch {
          live = false;
        }
        strategy = (await sessionOf(control, session.id))?.lastRefresh?.strategy ?? strategy;
      }
      await control('DELETE', `/v1/sessions/${session.id}`);
      if (!live) {
        rows.push({
          group: 'registry commit to the live agent re-list',
          name: `${name} (refresh strategy ${strategy}): no re-list within ${RELIST_TIMEOUT_MS / 1000} s`,
          value: Number.NaN,
          unit: 'ms',
        });
        continue;
      }
      const ms = median(samples);
      rows.push(
        {
          group: 'registry commit to the live agent re-list',
          name: `${name} (refresh strategy ${strategy})`,
          value: ms,
          unit: 'ms',
        },
        {
          group: 'registry commit to the live agent re-list',
          name: `${name}: of which commit -> session.refreshed (the daemon's strategy run, with the agent's answer to it)`,
          value: refreshed.length ? median(refreshed) : Number.NaN,
          unit: 'ms',
        },
      );
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
    await homes.agentEnv.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
}
