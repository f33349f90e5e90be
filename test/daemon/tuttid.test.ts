import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '@tutti/core/internal';
import { writeRelease, cleanUp, tempHomes, mcpRequest } from '@tutti/test-kit';
import { launchTuttid, startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tuttid-home-');
const newHome = () => homes.make();

afterEach(async () => {
  await stopAll();
  await cleanUp();
  await homes.removeAll();
});

/** A session binding from the prepare-only sessions API. */
async function bindingOf(daemon: TuttidProcess, agentSessionId = 'agent-1') {
  const { status, body } = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    agentSessionId,
    cwd: tmpdir(),
  });
  expect(status).toBe(200);
  const [binding] = body.runtime.mcpServers as { url: string; headers: Record<string, string> }[];
  return binding!;
}

/** One JSON-RPC request to the connector server on the 2025-06-18 surface. */
const rpc = mcpRequest;

async function toolNames(binding: { url: string; headers: Record<string, string> }) {
  const { body } = await rpc(binding, 'tools/list', {});
  return (body.result.tools as { name: string }[]).map((tool) => tool.name);
}

async function runtimePids(daemon: TuttidProcess): Promise<number[]> {
  const { body } = await daemon.control('GET', '/debug/registry');
  return (body.connectors as { pid?: number }[]).flatMap((c) => (c.pid ? [c.pid] : []));
}

async function allGone(pids: number[]): Promise<boolean> {
  for (let i = 0; i < 400; i++) {
    if (pids.every((pid) => !isProcessGroupAlive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

describe('tuttid', () => {
  it('prints its usage with --help and exits 0, touching no home', async () => {
    const home = join(await newHome(), 'not-created');
    const launched = launchTuttid(home, ['--help']);
    const closed = new Promise((resolve) => launched.child.once('close', resolve));
    expect(await launched.exited).toEqual({ code: 0, signal: null });
    await closed;
    expect(launched.stdout()).toContain('Usage: tuttid [options]');
    expect(launched.stdout()).toContain('--no-demo');
    expect(launched.stderr()).toBe('');
    expect(existsSync(home)).toBe(false);
  });

  it('says in its banner how to install a connector when the home holds none', async () => {
    const home = await newHome();
    const launched = launchTuttid(home, ['--no-demo'], { json: false });
    const banner = await new Promise<string>((resolve, reject) => {
      const read = () => {
        if (launched.stdout().includes('  stop ')) resolve(launched.stdout());
      };
      launched.child.stdout!.on('data', () => setImmediate(read));
      void launched.exited.then(() => reject(new Error(`tuttid exited: ${launched.stderr()}`)));
    });
    expect(banner).toContain('tuttid is ready');
    expect(banner).toContain('connectors  none installed: install one through the control API');
    expect(banner).toContain('POST /v1/connectors/install {"path": "<release folder>"}');
    expect(banner).toContain(`CLI shims   ${join(home, 'bin')}`);
    expect(banner).toMatch(/discover {4}(tutti|node \S+tutti\.js) connector available --home /);
    launched.child.kill('SIGTERM');
    expect((await launched.exited).code).toBe(143);
  });

  it('seeds the demo connectors on an empty home and serves their tools', async () => {
    const home = await newHome();
    const daemon = await startTuttid(home);
    expect((await daemon.settled)?.connectors.map((c) => c.key)).toEqual(['hello', 'notes']);

    const available = await daemon.control('GET', '/v1/connectors/available');
    expect(available.body.connectors.map((c: { key: string }) => c.key)).toEqual([
      'hello',
      'notes',
    ]);
    const binding = await bindingOf(daemon);
    expect(await toolNames(binding)).toEqual([
      'notes_add_note',
      'notes_delete_note',
      'notes_list_notes',
    ]);
    const info = JSON.parse(await readFile(join(home, 'run', 'daemon.json'), 'utf8'));
    expect(info.pid).toBe(daemon.ready.pid);
    expect(daemon.stdout() + daemon.stderr()).not.toContain(info.controlToken);
    expect(daemon.stdout() + daemon.stderr()).not.toContain(
      binding.headers.Authorization!.slice('Bearer '.length),
    );
  });

  it('installs, authorizes, upgrades under load with zero failed calls, and uninstalls', async () => {
    const daemon = await startTuttid(await newHome(), ['--no-demo']);
    const binding = await bindingOf(daemon);
    expect(await toolNames(binding)).toEqual([]);

    const keyed = await writeRelease({ key: 'keyed', serverArgs: [], apiKeyEnv: 'KEYED_TOKEN' });
    const installed = await daemon.control('POST', '/v1/connectors/install', { path: keyed });
    expect(installed.status).toBe(200);
    expect(await toolNames(binding)).toEqual([]);
    const auth = await daemon.control('PUT', '/v1/connectors/keyed/credentials', {
      secret: 'keyed-secret-123',
    });
    expect(auth.body.authReady).toBe(true);
    expect(await toolNames(binding)).toContain('keyed_echo');

    let stop = false;
    let calls = 0;
    const failures: unknown[] = [];
    const load = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const { body } = await rpc(binding, 'tools/call', { name: 'keyed_echo', arguments: {} });
        if (body.error || body.result?.isError) failures.push(body);
        else calls++;
      }
    });
    const v2 = await writeRelease({
      key: 'keyed',
      version: '2.0.0',
      serverArgs: ['--tools', '1'],
      apiKeyEnv: 'KEYED_TOKEN',
    });
    await daemon.control('POST', '/v1/connectors/install', { path: v2 });
    stop = true;
    await Promise.all(load);
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(0);
    expect(await toolNames(binding)).toContain('keyed_tool_1');

    const lost = await daemon.control('DELETE', '/v1/connectors/keyed/credentials');
    expect(lost.body.authReady).toBe(false);
    expect(await toolNames(binding)).toEqual([]);
    await daemon.control('PUT', '/v1/connectors/keyed/credentials', { secret: 'again-456' });
    const removed = await daemon.control('DELETE', '/v1/connectors/keyed');
    expect(removed.status).toBe(200);
    expect(await toolNames(binding)).toEqual([]);
    expect(daemon.stderr()).not.toContain('keyed-secret-123');

    const metrics = await daemon.control('GET', '/metrics');
    expect(metrics.body).toMatch(/tutti_connector_tool_calls_total\{connector="keyed"\} \d+/);
  });

  it('answers a bad manifest with an error naming the field and the fix', async () => {
    const daemon = await startTuttid(await newHome(), ['--no-demo']);
    const release = await writeRelease({ key: 'bad', serverArgs: [] });
    const manifest = JSON.parse(await readFile(join(release, 'tutti-connector.json'), 'utf8'));
    delete manifest.mcp.command;
    await writeFile(join(release, 'tutti-connector.json'), JSON.stringify(manifest));

    const answer = await daemon.control('POST', '/v1/connectors/install', { path: release });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body.error.message).toMatch(/mcp\.command/);
    const unauthorized = await fetch(`${daemon.ready.controlUrl}/v1/connectors`);
    expect(unauthorized.status).toBe(401);
  });

  it('leaves no upstream process behind when it is killed with SIGKILL', async () => {
    const home = await newHome();
    const daemon = await startTuttid(home, ['--no-demo']);
    for (const key of ['one', 'two']) {
      const path = await writeRelease({ key, serverArgs: ['--spawn-child'] });
      await daemon.control('POST', '/v1/connectors/install', { path });
    }
    const pids = await runtimePids(daemon);
    expect(pids).toHaveLength(2);

    daemon.child.kill('SIGKILL');
    await daemon.exited;
    expect(await allGone(pids)).toBe(true);
  });

  it('stops every upstream on SIGTERM, then brings every route back on restart', async () => {
    const home = await newHome();
    const first = await startTuttid(home, ['--no-demo']);
    const path = await writeRelease({ key: 'keep', serverArgs: ['--tools', '2'] });
    await first.control('POST', '/v1/connectors/install', { path });
    const pids = await runtimePids(first);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(143);
    expect(await allGone(pids)).toBe(true);

    const second = await startTuttid(home);
    expect((await second.settled)?.connectors).toEqual([
      { key: 'keep', state: 'ready', toolCount: 14 },
    ]);
    expect(await toolNames(await bindingOf(second))).toContain('keep_tool_2');
  });

  it('comes back with the last good state when its state file was damaged', async () => {
    const home = await newHome();
    const first = await startTuttid(home, ['--no-demo']);
    const path = await writeRelease({ key: 'sturdy', serverArgs: [] });
    await first.control('POST', '/v1/connectors/install', { path });
    first.child.kill('SIGTERM');
    await first.exited;
    await writeFile(join(home, 'state', 'installed.json'), '{"version": 1, "connec');

    const second = await startTuttid(home);
    expect((await second.settled)?.connectors.map((c) => c.key)).toEqual(['sturdy']);
    expect(second.stderr()).toMatch(/TUTTI_ERR_STORE_STATE_RESTORED/);
  });
});
