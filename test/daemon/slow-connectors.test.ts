/**
 * Nothing waits on a slow connector, with real `tuttid` processes and real upstreams: the
 * daemon is ready once its servers listen while a hung upstream is still `starting`, a
 * healthy connector beside it is served, an install waits only for its own connector, an
 * upgrade calls off the hung start it replaces, the manifest's `mcp.startTimeoutMs`
 * bounds a start, and an agent session started right after ready gets the connectors as
 * they come up.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchAvailableConnectors } from '../../cli/src/daemon-client.js';
import {
  SILENT_SERVER,
  writeRelease,
  cleanUp,
  NODE_BIN_DIR,
  type McpBinding,
  mcpRequest,
} from '@tutti/test-kit';
import { openStore } from '@tutti/core/internal';
import { type AgentDaemon, expectRefreshed, startAgentDaemon } from '@tutti/test-kit/agent-daemon';
import { startTuttid, stopAll, type TuttidProcess, waitForConnector } from '@tutti/test-kit/tuttid';

const homes: string[] = [];
let agents: AgentDaemon | undefined;

afterEach(async () => {
  await agents?.dispose();
  agents = undefined;
  await stopAll();
  await cleanUp();
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

/** A connector whose server never answers initialize, within a 10-minute start bound. */
function hungRelease(key = 'hung'): Promise<string> {
  return writeRelease({ key, serverArgs: [], script: SILENT_SERVER, startTimeoutMs: 600_000 });
}

/** A fresh home with `releases` installed, as a daemon finds it when it starts. */
async function homeWith(releases: string[]): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'tuttid-slow-'));
  homes.push(home);
  const store = await openStore(home);
  for (const release of releases) await store.install(release);
  return home;
}

/** The runtime state of `key` as `GET /v1/connectors` shows it now. */
async function stateOf(daemon: TuttidProcess, key: string): Promise<string | undefined> {
  const { body } = await daemon.control('GET', '/v1/connectors');
  return body.connectors.find((c: { key: string }) => c.key === key)?.runtime?.state;
}

/** Tool names the connector server lists to a fresh prepare-only session. */
async function servedTools(daemon: TuttidProcess): Promise<string[]> {
  const { body } = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    cwd: tmpdir(),
  });
  const [binding] = body.runtime.mcpServers as McpBinding[];
  const answer = (await mcpRequest(binding!, 'tools/list')).body as {
    result: { tools: { name: string }[] };
  };
  return answer.result.tools.map((tool) => tool.name);
}

describe('a slow connector', () => {
  it('does not hold up ready: the daemon serves the healthy connector while the hung one is starting', async () => {
    const home = await homeWith([
      await hungRelease(),
      await writeRelease({ key: 'fast', serverArgs: [] }),
    ]);
    const daemon = await startTuttid(home, ['--no-demo'], { until: 'ready' });
    expect(daemon.ready.connectors.find((c) => c.key === 'hung')?.state).toBe('starting');

    await waitForConnector(daemon, 'fast');
    expect(await servedTools(daemon)).toContain('fast_echo');
    // The CLI answers through the same path as ever while a connector is still starting.
    const available = await fetchAvailableConnectors(home);
    expect(available.connectors.map((c) => c.key)).toContain('fast');
    expect(await stateOf(daemon, 'hung')).toBe('starting');
  });

  it('holds up only its own connector: an install beside it answers with its connector ready', async () => {
    const home = await homeWith([await hungRelease()]);
    const daemon = await startTuttid(home, ['--no-demo'], { until: 'ready' });
    const path = await writeRelease({ key: 'later', serverArgs: [] });
    const installed = await daemon.control('POST', '/v1/connectors/install', { path });
    expect(installed.status).toBe(200);
    expect(installed.body.runtime.state).toBe('ready');
    expect(await stateOf(daemon, 'hung')).toBe('starting');
    expect(await servedTools(daemon)).toContain('later_echo');
  });

  it('calls off a hung start when a new release of the same connector is installed', async () => {
    const home = await homeWith([await hungRelease('flaky')]);
    const daemon = await startTuttid(home, ['--no-demo'], { until: 'ready' });
    expect(await stateOf(daemon, 'flaky')).toBe('starting');
    const fixed = await writeRelease({ key: 'flaky', version: '1.0.1', serverArgs: [] });
    // Waits for the start: the hung server ignores SIGTERM, so calling it off takes the
    // kill's grace, longer than an install answers without `wait`.
    const upgraded = await daemon.control('POST', '/v1/connectors/install', {
      path: fixed,
      wait: true,
    });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.runtime).toMatchObject({
      state: 'ready',
      revision: upgraded.body.revision,
    });
    expect(await servedTools(daemon)).toContain('flaky_echo');
    const { body } = await daemon.control('GET', '/debug/registry');
    expect(
      body.events.filter((e: { key: string; kind: string }) => e.kind === 'start-failed'),
    ).toEqual([]);
  });

  it("is stopped after its manifest's start timeout and reported as such", async () => {
    const home = await homeWith([
      await writeRelease({
        key: 'bounded',
        serverArgs: [],
        script: SILENT_SERVER,
        startTimeoutMs: 300,
      }),
    ]);
    const daemon = await startTuttid(home, ['--no-demo']);
    expect((await daemon.settled)?.connectors).toEqual([
      { key: 'bounded', state: 'failed', toolCount: 0 },
    ]);
    const entry = await waitForConnector(daemon, 'bounded', ['failed', 'restarting']);
    expect(entry.runtime.lastError).toContain('within 300 ms');
    expect(entry.runtime.lastError).toContain('mcp.startTimeoutMs');
  });

  it('reaches an agent session started right after ready once it comes up', async () => {
    const gate = join(await mkdtemp(join(tmpdir(), 'tutti-gate-')), 'open');
    homes.push(join(gate, '..'));
    agents = await startAgentDaemon({
      untilReady: true,
      installed: [
        await writeRelease({ key: 'first', serverArgs: [] }),
        await writeRelease({
          key: 'gated',
          serverArgs: ['--start-gate', gate],
          startTimeoutMs: 120_000,
        }),
      ],
    });
    const info = await agents.startSession({
      provider: 'opencode',
      workspaceId: 'ws-slow',
      cwd: agents.agentEnv.cwd,
      env: agents.env,
      launch: { command: join(NODE_BIN_DIR, 'opencode'), args: ['acp'] },
    });
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    await waitForConnector(agents.daemon, 'first');
    expect((await agents.registry()).names).not.toContain('gated_echo');

    await writeFile(gate, '');
    await waitForConnector(agents.daemon, 'gated');
    const after = await agents.registry();
    expect(after.names).toEqual(expect.arrayContaining(['first_echo', 'gated_echo']));
    await expectRefreshed(agents, info, 'native-reload', after);
  }, 120_000);
});
