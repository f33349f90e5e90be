/**
 * What the daemon says about a connector is what runs: a failed upgrade under call load
 * loses no call, the old release is reported running and the new one pending with why, the
 * same after a daemon restart (the last release that ran serves); a connector that keeps
 * failing parks until told; `retry` and `rollback` do what they say; an install answers
 * within its bound whatever the upstream does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, SILENT_SERVER, writeRelease, tempHomes, WAIT, mcpRequest } from '@tutti/test-kit';
import { startTuttid, stopAll, type TuttidProcess, waitForConnector } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tutti-honest-state-');

afterEach(async () => {
  await stopAll();
  await homes.removeAll();
  await cleanUp();
});

/** A session token of a prepare-only session (an agent's view of the connector server). */
async function tokenOf(daemon: TuttidProcess, id: string): Promise<string> {
  const { body } = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    agentSessionId: id,
    cwd: '/tmp',
  });
  return body.runtime.mcpServers[0].headers.Authorization.slice('Bearer '.length);
}

/** Calls `tool` through the daemon's connector server; true when it answered a result. */
async function call(daemon: TuttidProcess, token: string, tool: string): Promise<boolean> {
  const binding = { url: daemon.ready.mcpUrl, headers: { authorization: `Bearer ${token}` } };
  const { status, body } = await mcpRequest(binding, 'tools/call', {
    name: tool,
    arguments: { n: 1 },
  });
  return status === 200 && body.result !== undefined && body.result.isError !== true;
}

/** The connector as `GET /v1/connectors` shows it. */
async function connector(daemon: TuttidProcess, key: string) {
  const { body } = await daemon.control('GET', '/v1/connectors');
  return body.connectors.find((c: { key: string }) => c.key === key);
}

/** Events of `key` the runtime recorded, of `kind`. */
async function recorded(daemon: TuttidProcess, key: string, kind: string): Promise<number> {
  const { body } = await daemon.control('GET', '/debug/registry');
  return body.events.filter((e: { key: string; kind: string }) => e.key === key && e.kind === kind)
    .length;
}

/** A release of `key` at `version` whose MCP command does not exist (a typo). */
async function brokenRelease(key: string, version: string): Promise<string> {
  return writeRelease({ key, version, serverArgs: [], command: 'nodee-typo' });
}

describe('the state shown is the state that runs', () => {
  it('keeps serving the last good release through a failed upgrade and a restart, reports it, parks, retries and rolls back', async () => {
    const home = await homes.make();
    const args = ['--no-demo', '--park-after', '3'];
    let daemon = await startTuttid(home, args);
    const good = await writeRelease({ key: 'memo', version: '1.0.0', serverArgs: [] });
    expect((await daemon.control('POST', '/v1/connectors/install', { path: good })).status).toBe(
      200,
    );
    await waitForConnector(daemon, 'memo');
    const token = await tokenOf(daemon, 'loader');

    // 16 callers keep calling while the upgrade fails.
    let failed = 0;
    let calls = 0;
    let loading = true;
    const callers = Array.from({ length: 16 }, async () => {
      while (loading) {
        calls += 1;
        if (!(await call(daemon, token, 'memo_echo'))) failed += 1;
      }
    });
    const broken = await brokenRelease('memo', '2.0.0');
    const upgraded = await daemon.control('POST', '/v1/connectors/install', {
      path: broken,
      wait: true,
    });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.runtime).toMatchObject({
      state: 'ready',
      running: { version: '1.0.0' },
      pending: { version: '2.0.0', revision: upgraded.body.revision },
    });
    expect(upgraded.body.runtime.pending.reason).toMatch(/nodee-typo|ENOENT|not found|spawn/i);
    const listed = await connector(daemon, 'memo');
    expect(listed).toMatchObject({
      version: '2.0.0',
      running: { version: '1.0.0' },
      pending: { version: '2.0.0' },
    });
    // It fails three times in a row, then parks: it says so once and tries no more.
    await expect
      .poll(async () => (await connector(daemon, 'memo')).runtime.parked, WAIT)
      .toBe(true);
    loading = false;
    await Promise.all(callers);
    expect(calls).toBeGreaterThan(16);
    expect(failed).toBe(0);
    const tries = await recorded(daemon, 'memo', 'start-failed');
    expect(await recorded(daemon, 'memo', 'parked')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await recorded(daemon, 'memo', 'start-failed')).toBe(tries);
    const available = (await daemon.control('GET', '/v1/connectors/available')).body.connectors;
    const summary = available.find((c: { key: string }) => c.key === 'memo');
    expect(summary.interfaces[0].status).toBe('ready');
    // `connector available` says it too, in fixed words (never the upstream's).
    expect(summary).toMatchObject({
      running: { version: '1.0.0' },
      pending: {
        version: '2.0.0',
        reason: 'it did not start; tuttid status or the dashboard say why',
      },
    });

    // After a restart the last release that ran serves, the new one still pending.
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    daemon = await startTuttid(home, args);
    const restarted = await connector(daemon, 'memo');
    expect(restarted).toMatchObject({
      version: '2.0.0',
      running: { version: '1.0.0' },
      pending: { version: '2.0.0' },
      runtime: { state: 'ready', toolCount: 12 },
    });
    expect(await call(daemon, await tokenOf(daemon, 'after'), 'memo_echo')).toBe(true);

    // retry tries the installed release again now; it still fails, the old one serves.
    const retried = await daemon.control('POST', '/v1/connectors/memo/retry');
    expect(retried.status).toBe(200);
    expect(retried.body.runtime).toMatchObject({
      state: 'ready',
      running: { version: '1.0.0' },
      pending: { version: '2.0.0' },
    });

    // rollback installs the last good release again: nothing pending any more.
    const rolled = await daemon.control('POST', '/v1/connectors/memo/rollback');
    expect(rolled.status, JSON.stringify(rolled.body)).toBe(200);
    expect(rolled.body).toMatchObject({ version: '1.0.0', changed: true });
    expect(rolled.body.runtime).toMatchObject({ state: 'ready', running: { version: '1.0.0' } });
    expect(rolled.body.runtime.pending).toBeUndefined();
    const none = await daemon.control('POST', '/v1/connectors/memo/rollback');
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('TUTTI_ERR_STORE_NO_ROLLBACK');
  }, 180_000);

  it('answers an install within its bound whatever the upstream does, and waits when asked', async () => {
    const daemon = await startTuttid(await homes.make(), ['--no-demo']);
    const hung = await writeRelease({
      key: 'hung',
      serverArgs: [],
      script: SILENT_SERVER,
      startTimeoutMs: 60_000,
    });
    const started = Date.now();
    const answer = await daemon.control('POST', '/v1/connectors/install', { path: hung });
    expect(answer.status).toBe(200);
    expect(answer.body.runtime.state).toBe('starting');
    expect(answer.body.runtime.pending).toMatchObject({ version: '1.0.0' });
    // It did not wait for the start (60 s): the bound is 2 s, the slack is the machine's.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect((await daemon.control('DELETE', '/v1/connectors/hung')).status).toBe(200);

    const quick = await writeRelease({ key: 'quick', serverArgs: [] });
    const waited = await daemon.control('POST', '/v1/connectors/install', {
      path: quick,
      wait: true,
    });
    expect(waited.body.runtime).toMatchObject({ state: 'ready', running: { version: '1.0.0' } });
  }, 120_000);
});

describe('a first release that never started', () => {
  it('is pending with its reason and nothing running, and a retry of an unknown key says so', async () => {
    const daemon = await startTuttid(await homes.make(), ['--no-demo']);
    const broken = await brokenRelease('never', '1.0.0');
    const answer = await daemon.control('POST', '/v1/connectors/install', {
      path: broken,
      wait: true,
    });
    expect(answer.body.runtime.state).toBe('failed');
    expect(answer.body.runtime.running).toBeUndefined();
    expect(answer.body.runtime.pending).toMatchObject({ version: '1.0.0' });
    const unknown = await daemon.control('POST', '/v1/connectors/nosuch/retry');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR');
  });
});
