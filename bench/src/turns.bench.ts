/**
 * The daemon's added latency per turn, on a real `tuttid` and the real agents (opencode
 * over ACP, `codex app-server`, Claude Code through the Agent SDK), against the same agent
 * driven directly in its own protocol, rounds interleaved, with the test kit's scripted
 * model in its paced mode in its own process (`lib/paced-model-child.ts`: 20 text deltas
 * 10 ms apart per turn). Each agent runs behind the stamp shim (`lib/stamp-shim.ts`) both
 * ways, which stamps, on the monotonic clock all processes share, when the agent reads the
 * prompt and when it writes each delta; the clients stamp when they send the turn and when
 * each delta's event arrives. So the daemon's part splits off the agent's:
 *
 * - turn start: request sent -> prompt read by the agent (through the daemon: HTTP, the
 *   turn runner, the provider's write; directly: the client's write);
 * - per event: delta written by the agent -> its event parsed by the client (through the
 *   daemon: its parse, the normalized event, the SSE frame, loopback HTTP);
 * - beside them, request -> first text event, and the agent's own time (prompt read ->
 *   first delta written), which the daemon does not touch.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_BIN_DIR as BIN } from '@tutti/test-kit';
import { createAgentHomes, OPENCODE_OFFLINE } from '@tutti/test-kit/agent-env';
import { scriptedCodexConfig, turnAgents } from '@tutti/test-kit/agent-turns';
import { CLAUDE_CODE_BIN as CLAUDE } from '@tutti/test-kit/paths';
import { deltaTexts } from '@tutti/test-kit/scripted-model';
import {
  type Control,
  controlOf,
  controlToken,
  listedSession,
  type StartAnswer,
} from './lib/daemon-control.js';
import { writeStdioReleases } from './lib/daemon-home.js';
import { startTuttid } from './lib/daemon-process.js';
import {
  directAcp,
  directAppServer,
  directClaude,
  type DirectTurnAgent,
} from './lib/direct-turns.js';
import { relayFloor } from './lib/relay-floor.js';
import { daemonRows, median, quantile, turnRows } from './lib/turn-report.js';
import { firstMessage, spawnGroup } from './lib/processes.js';
import {
  type Seen,
  type TurnTiming,
  type DaemonPart,
  daemonPart,
  readStamps,
  shimStamps,
  turnTiming,
  writeShim,
} from './lib/turn-stamps.js';
import { streamedTurn } from './lib/turn-stream.js';
import type { BenchResult, Row, Target } from './types.js';

const ROUNDS = process.env.BENCH_QUICK ? 2 : 8;
const DELTAS = 20;

/** One agent both ways: the session request through the daemon, and the direct start. */
interface TurnAgentSetup {
  readonly request: Record<string, unknown>;
  direct(binding: import('./lib/daemon-control.js').Binding): Promise<DirectTurnAgent>;
}

/** The turns bench. */
export default async function turnsBench(): Promise<BenchResult> {
  const loadBefore = loadavg()[0]!;
  const scratch = await mkdtemp(join(tmpdir(), 'tutti-bench-turns-'));
  // The model runs in its own process, so the process timing the turns serves no model.
  const modelGroup = spawnGroup(
    process.execPath,
    [fileURLToPath(new URL('./lib/paced-model-child.js', import.meta.url)), String(DELTAS), '10'],
    { ipc: true },
  );
  const model = await firstMessage<{ url: string }>(modelGroup);
  // The agents' HOME and XDG folders, and the daemon's CODEX_HOME, set up for the model as
  // the kit sets them up for the tests' turns.
  const homes = await createAgentHomes();
  const bodies = await turnAgents(homes, model);
  const home = join(scratch, 'home');
  const probeFile = join(scratch, 'daemon-probe.stamps');
  await writeFile(probeFile, '');
  const daemon = await startTuttid(home, {
    env: { CODEX_HOME: homes.codexHome, TUTTI_BENCH_PROBE_FILE: probeFile },
    nodeArgs: ['--import', new URL('./lib/daemon-turn-probe.js', import.meta.url).href],
  });
  const directs: DirectTurnAgent[] = [];
  const sessions: string[] = [];
  let control: Control | undefined;
  try {
    control = await controlOf(daemon, home);
    const token = await controlToken(home);
    const [release] = await writeStdioReleases(join(scratch, 'releases'), 1, 5);
    if (!release) throw new Error('turns: no release was written');
    await control('POST', '/v1/connectors/install', { path: release });
    const cwd = homes.agentEnv.cwd;
    const shims = async (name: string, agent: string) => ({
      daemon: await writeShim(scratch, `${name}-daemon`, agent),
      direct: await writeShim(scratch, `${name}-direct`, agent),
    });
    const opencodeEnv = { ...bodies.opencode.env, ...OPENCODE_OFFLINE };
    const codexEnv = bodies.codex.env;
    const claudeEnv = bodies['claude-sdk'].env;
    const opencodeShims = await shims('opencode', join(BIN, 'opencode'));
    const codexShims = await shims('codex', join(BIN, 'codex'));
    const claudeShims = await shims('claude', CLAUDE);
    const agents: Record<string, TurnAgentSetup & { shims: typeof opencodeShims }> = {
      opencode: {
        shims: opencodeShims,
        request: {
          ...bodies.opencode,
          env: opencodeEnv,
          launch: { command: opencodeShims.daemon.command, args: ['acp'] },
        },
        direct: (binding) =>
          directAcp(opencodeShims.direct.command, ['acp'], opencodeEnv, cwd, binding),
      },
      codex: {
        shims: codexShims,
        request: { ...bodies.codex, launch: { command: codexShims.daemon.command } },
        direct: (binding) =>
          directAppServer(
            codexShims.direct.command,
            codexEnv,
            cwd,
            scratch,
            scriptedCodexConfig(model),
            binding,
          ),
      },
      'claude-sdk': {
        shims: claudeShims,
        request: { ...bodies['claude-sdk'], launch: { command: claudeShims.daemon.command } },
        direct: (binding) => directClaude(claudeShims.direct.command, claudeEnv, cwd, binding),
      },
    };
    const rows: Row[] = [];
    const targets: Target[] = [];
    let turns = 0;
    const floor: number[] = [];
    for (const [name, agent] of Object.entries(agents)) {
      const started = await control<StartAnswer>('POST', '/v1/sessions', {
        workspaceId: `bench-turns-${name}`,
        cwd,
        permissions: 'allow-connector',
        ...agent.request,
      });
      sessions.push(started.session.id);
      await listedSession(control, started.session.id);
      const prepared = await control<StartAnswer>('POST', '/v1/sessions', {
        workspaceId: `bench-turns-direct-${name}`,
        cwd,
      });
      sessions.push(prepared.session.id);
      const binding = prepared.runtime.mcpServers[0];
      if (!binding) throw new Error('turns: the prepared runtime has no MCP server');
      const direct = await agent.direct(binding);
      directs.push(direct);
      await listedSession(control, prepared.session.id);

      const inDaemon: DaemonPart[] = [];
      const through = async (): Promise<TurnTiming> => {
        const id = `t${++turns}`;
        const received: Seen = new Map();
        const sentAt = await streamedTurn(
          daemon.ready.controlUrl,
          token,
          started.session.id,
          `Answer the bench. [[p:${id}]]`,
          received,
        );
        const stamps = await shimStamps(agent.shims.daemon.stamps);
        const deltas = deltaTexts(id, DELTAS);
        const probe = await probeStamps(probeFile, deltas);
        inDaemon.push(daemonPart(id, deltas, probe, stamps, received, sentAt));
        return turnTiming(id, deltas, sentAt, received, stamps);
      };
      const directly = async (): Promise<TurnTiming> => {
        const id = `t${++turns}`;
        const received: Seen = new Map();
        const sentAt = await direct.turn(`Answer the bench. [[p:${id}]]`, received);
        const stamps = await shimStamps(agent.shims.direct.stamps);
        return turnTiming(id, deltaTexts(id, DELTAS), sentAt, received, stamps);
      };
      // A first turn each way warms the agent (opencode also asks the model for a title).
      await through();
      await directly();
      inDaemon.length = 0;
      const viaDaemon: TurnTiming[] = [];
      const viaDirect: TurnTiming[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        if (round % 2 === 0) {
          viaDaemon.push(await through());
          viaDirect.push(await directly());
        } else {
          viaDirect.push(await directly());
          viaDaemon.push(await through());
        }
      }
      if (process.env.BENCH_TURNS_TRACE) {
        for (const [path, timings] of [
          ['daemon', viaDaemon],
          ['direct', viaDirect],
        ] as const) {
          for (const t of timings) {
            console.error(
              name,
              path,
              t.start.toFixed(2),
              t.agent.toFixed(1),
              t.relay.map((r) => r.toFixed(2)).join(' '),
            );
          }
        }
      }
      // The relay floor between agents, so it meets the same machine load.
      floor.push(...(await relayFloor(ROUNDS, DELTAS, 10)));
      rows.push(...turnRows(name, viaDaemon, viaDirect), ...daemonRows(name, inDaemon));
      const ownStart = median(inDaemon.map((part) => part.start));
      const ownRelay = median(inDaemon.flatMap((part) => part.relay));
      const startAdded =
        median(viaDaemon.map((t) => t.start)) - median(viaDirect.map((t) => t.start));
      const relayAdded =
        median(viaDaemon.flatMap((t) => t.relay)) - median(viaDirect.flatMap((t) => t.relay));
      targets.push(
        {
          client: name,
          target: "daemon's own part per turn start (in-process)",
          measured: ownStart,
          unit: 'ms',
          goal: '< 5 ms',
          met: ownStart < 5,
        },
        {
          client: name,
          target: "daemon's own part per streamed event (in-process)",
          measured: ownRelay,
          unit: 'ms',
          goal: '< 1 ms',
          met: ownRelay < 1,
        },
        {
          client: name,
          target: 'added per turn start (through tuttid - direct)',
          measured: startAdded,
          unit: 'ms',
          goal: '< 5 ms',
          met: startAdded < 5,
        },
        {
          client: name,
          target: 'added per streamed event (through tuttid - direct)',
          measured: relayAdded,
          unit: 'ms',
          goal: '< 1 ms',
          met: relayAdded < 1,
        },
      );
    }
    const floorGroup = 'floor: bare Node relay process (stdin line -> SSE frame, loopback HTTP)';
    rows.push(
      { group: floorGroup, name: 'p50', value: median(floor) * 1000, unit: 'us' },
      { group: floorGroup, name: 'p90', value: quantile(floor, 0.9) * 1000, unit: 'us' },
      {
        group: 'machine',
        name: '1-min load average, start of the turns bench',
        value: loadBefore,
        unit: 'load',
      },
      {
        group: 'machine',
        name: '1-min load average, end of the turns bench',
        value: loadavg()[0]!,
        unit: 'load',
      },
    );
    return { rows, targets };
  } finally {
    for (const direct of directs) await direct.stop().catch(() => {});
    for (const id of sessions) await control?.('DELETE', `/v1/sessions/${id}`).catch(() => {});
    await daemon.stop();
    await modelGroup.stop();
    await homes.agentEnv.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The probe's stamps once they hold every delta of a turn (it flushes after the turn's end). */
async function probeStamps(file: string, deltas: readonly string[]) {
  const last = deltas.at(-1)!.trim();
  for (let i = 0; ; i += 1) {
    const stamps = await readStamps(file);
    if (stamps.get('sse')?.has(last) || i >= 100) return stamps;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
