/**
 * Nothing of a sandboxed connector server outlives its connector or its daemon: not the
 * bwrap process, not the server inside it, not a child the server left in a session of
 * its own. A real `tuttid --sandbox required` killed with SIGKILL leaves nothing after
 * 2 s; a sandboxed server crashed 30 times in a row (each run restarted by the runtime)
 * leaves nothing of any run.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, fixtureCopy, mcpRequest } from '@tutti/test-kit';
import { descendantsOf, survivors } from '@tutti/test-kit/proc-tree';
import { closeDaemons, startTestDaemon } from '@tutti/test-kit/reliability/in-process-daemon';
import { startTuttid, stopAll } from '@tutti/test-kit/tuttid';

const homes: string[] = [];
/** 2 s of 25 ms polls. */
const TWO_SECONDS = 80;

afterEach(async () => {
  await stopAll();
  await closeDaemons();
  await cleanUp();
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

async function probeRelease(key: string): Promise<string> {
  const manifest = {
    key,
    name: `Probe ${key}`,
    description: 'Reports what its server process can do.',
    version: '1.0.0',
    mcp: { command: 'node', args: ['./server.mjs'] },
    auth: { kind: 'none' },
  };
  return fixtureCopy('probe', { 'tutti-connector.json': JSON.stringify(manifest) });
}

/** The command name of `pid` (empty once it is gone). */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

async function callProbe(url: string, token: string, key: string, args: object) {
  const binding = { url, headers: { authorization: `Bearer ${token}` } };
  return mcpRequest(binding, 'tools/call', { name: `${key}_probe`, arguments: args });
}

describe('sandboxed servers leave no process behind', () => {
  it('a tuttid killed with SIGKILL leaves no bwrap, server or escaped child after 2 s', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tutti-sandbox-exit-'));
    homes.push(home);
    const daemon = await startTuttid(home, ['--no-demo', '--sandbox', 'required']);
    const { body } = await daemon.control('POST', '/v1/sessions', {
      workspaceId: 'ws',
      agentSessionId: 'lifetime',
      cwd: tmpdir(),
    });
    const token = body.runtime.mcpServers[0].headers.Authorization.slice('Bearer '.length);
    for (const key of ['one', 'two']) {
      const path = await probeRelease(key);
      const installed = await daemon.control('POST', '/v1/connectors/install', {
        path,
        wait: true,
      });
      expect(installed.body.runtime.state).toBe('ready');
      const answer = await callProbe(daemon.ready.mcpUrl, token, key, { spawnChild: true });
      expect(answer.body.result.structuredContent.child).toMatch(/^\d+$/);
    }
    const tree = descendantsOf(daemon.ready.pid);
    const names = tree.map(commandOf);
    expect(names.filter((name) => name === 'bwrap').length).toBeGreaterThanOrEqual(2);
    expect(names.filter((name) => name === 'sleep')).toHaveLength(2);

    daemon.child.kill('SIGKILL');
    await daemon.exited;
    expect(await survivors(tree, TWO_SECONDS)).toEqual([]);
  });

  it('30 crashes of a sandboxed server, each restarted, leave nothing of any run', async () => {
    const { control, sessionToken, daemon } = await startTestDaemon({
      sandbox: 'required',
      backoff: { initialMs: 10, maxMs: 10 },
      parkAfter: 1000,
    });
    const path = await probeRelease('crashy');
    const installed = await control('POST', '/v1/connectors/install', { path, wait: true });
    expect(installed.body.runtime.state).toBe('ready');
    const token = await sessionToken('crashes');
    const seen = new Map<number, string>();
    let restarts = 0;
    for (let round = 0; round < 30; round++) {
      // Wait for the next run to serve, make it leave a child, note the tree, crash it.
      for (;;) {
        const answer = await callProbe(daemon.mcpUrl, token, 'crashy', { spawnChild: true });
        if (answer.status === 200 && answer.body.result?.structuredContent) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (const pid of descendantsOf(process.pid)) seen.set(pid, commandOf(pid));
      await callProbe(daemon.mcpUrl, token, 'crashy', { exit: true });
    }
    for (;;) {
      const { body } = await control('GET', '/v1/connectors');
      restarts = body.connectors[0].runtime.restarts;
      if (restarts >= 30 && body.connectors[0].runtime.state === 'ready') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await closeDaemons();
    const names = [...seen.values()];
    expect(names.filter((name) => name === 'sleep').length).toBeGreaterThanOrEqual(30);
    expect(names.filter((name) => name === 'bwrap').length).toBeGreaterThanOrEqual(30);
    expect(await survivors([...seen.keys()], TWO_SECONDS)).toEqual([]);
  }, 120_000);
});
