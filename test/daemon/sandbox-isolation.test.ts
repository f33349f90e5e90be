/**
 * Connector servers under isolation (docs/sandbox.md): a real `tuttid` with a home of its
 * own for the user (a canary file and a `.ssh` folder in it) and a secret variable in its
 * environment runs the kit's `probe` connector under Debian's bubblewrap; its tool, called
 * through the `connector` server with an agent session's bearer token, reports what the
 * server could do. The same server with `--sandbox off` does every forbidden thing, so
 * each assertion below can fail.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, fixtureCopy, mcpRequest, tempHomes } from '@tutti/test-kit';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tutti-sandbox-');
const SECRET = 'probe-secret-value-7f3a';
const listeners: Server[] = [];

afterEach(async () => {
  await stopAll();
  await Promise.all(listeners.splice(0).map((s) => new Promise((r) => s.close(r))));
  await homes.removeAll();
  await cleanUp();
});

/** The user's home: a canary, a key in `.ssh`, a notes folder, a token in `.config/gh`. */
async function userHome(): Promise<string> {
  const home = await homes.make();
  await writeFile(join(home, 'canary.txt'), 'the user has this');
  await mkdir(join(home, '.ssh'));
  await writeFile(join(home, '.ssh', 'id_test'), 'PRIVATE KEY');
  await mkdir(join(home, 'notes'));
  await writeFile(join(home, 'notes', 'todo.txt'), 'shared with the connector');
  await mkdir(join(home, '.config', 'gh'), { recursive: true });
  await writeFile(join(home, '.config', 'gh', 'hosts.yml'), 'oauth_token: not shared');
  await mkdir(join(home, '.config', 'app'));
  await writeFile(join(home, '.config', 'app', 'settings.json'), '{}');
  return home;
}

/** A loopback port this test listens on. */
async function listening(): Promise<number> {
  const server = createServer((socket) => socket.end());
  listeners.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** The probe release as `key`, with `mcp` fields over its own. */
async function probeRelease(key: string, mcp: Record<string, unknown> = {}): Promise<string> {
  const manifest = {
    key,
    name: `Probe ${key}`,
    description: 'Reports what its server process can do.',
    version: '1.0.0',
    mcp: { command: 'node', args: ['./server.mjs'], ...mcp },
    auth: { kind: 'none' },
  };
  return fixtureCopy('probe', { 'tutti-connector.json': JSON.stringify(manifest) });
}

async function start(user: string, sandbox: string, extra: Record<string, string> = {}) {
  const home = await homes.make();
  const daemon = await startTuttid(home, ['--no-demo', '--sandbox', sandbox], {
    env: { HOME: user, PROBE_SECRET: SECRET, ...extra },
  });
  return { home, daemon };
}

async function install(daemon: TuttidProcess, path: string) {
  const { status, body } = await daemon.control('POST', '/v1/connectors/install', {
    path,
    wait: true,
  });
  expect(status).toBe(200);
  return body;
}

async function token(daemon: TuttidProcess): Promise<string> {
  const { body } = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    agentSessionId: `probe-${Math.random()}`,
    cwd: '/tmp',
  });
  return body.runtime.mcpServers[0].headers.Authorization.slice('Bearer '.length);
}

type Report = Record<string, string>;

async function probe(daemon: TuttidProcess, key: string, args: Record<string, unknown>) {
  const binding = {
    url: daemon.ready.mcpUrl,
    headers: { authorization: `Bearer ${await token(daemon)}` },
  };
  const { status, body } = await mcpRequest(binding, 'tools/call', {
    name: `${key}_probe`,
    arguments: args,
  });
  expect(status).toBe(200);
  expect(body.result?.isError).not.toBe(true);
  return body.result.structuredContent as Report;
}

describe('connector servers run isolated', () => {
  it('under the default profile a server has its own folders and the network, and nothing of the user or the daemon', async () => {
    const user = await userHome();
    const { home, daemon } = await start(user, 'required');
    const installed = await install(daemon, await probeRelease('probe'));
    expect(installed.runtime.state).toBe('ready');
    expect(installed.sandbox).toMatchObject({
      isolation: 'isolated',
      platform: 'bubblewrap',
      profile: 'default',
      network: 'host',
      home: { read: [], write: [] },
      limits: { memoryMiB: 2048, processes: 512 },
    });
    expect(installed.sandbox.env).not.toContain('PROBE_SECRET');
    // `tutti connector available` (and the agents' guidance) shows no paths of it.
    const available = await daemon.control('GET', '/v1/connectors/available');
    expect(JSON.stringify(available.body)).not.toMatch(/sandbox|connector-data/);
    expect(installed.sandbox.env).toEqual(
      expect.arrayContaining(['PATH', 'HOME', 'TMPDIR', 'TUTTI_CONNECTOR_STATE_DIR']),
    );
    const port = await listening();
    const report = await probe(daemon, 'probe', {
      read: join(user, 'canary.txt'),
      write: join(user, 'planted.txt'),
      port,
      variable: 'PROBE_SECRET',
    });
    const state = join(home, 'connector-data', 'probe');
    expect(report).toMatchObject({
      cwd: state,
      home: state,
      stateDir: state,
      readFile: 'ENOENT',
      writeInState: 'ok',
      writeInRelease: 'EROFS',
      connect: 'ok',
      variable: 'absent',
      firstEnviron: 'absent',
      noNewPrivs: '1',
      seccomp: '2',
    });
    // What it wrote beside its state folder or in the user's home landed nowhere real.
    expect(existsSync(join(home, 'connector-data', 'escaped.txt'))).toBe(false);
    expect(existsSync(join(user, 'planted.txt'))).toBe(false);
    expect(await readFile(join(state, 'kept.txt'), 'utf8')).toBe('x');
    // The secret never reached a log line either.
    expect(await readFile(join(home, 'logs', 'tuttid.log'), 'utf8')).not.toContain(SECRET);
  });

  it('with network "none" a loopback port outside is unreachable, and a memory limit refuses an allocation; the tool still answers', async () => {
    const user = await userHome();
    const { daemon } = await start(user, 'auto');
    const installed = await install(
      daemon,
      await probeRelease('closed', { sandbox: { network: 'none', limits: { memoryMiB: 256 } } }),
    );
    expect(installed.sandbox).toMatchObject({
      isolation: 'isolated',
      profile: 'declared',
      network: 'none',
      limits: { memoryMiB: 256, processes: 512 },
    });
    const report = await probe(daemon, 'closed', { port: await listening(), allocateMiB: 512 });
    expect(report.connect).toBe('ECONNREFUSED');
    expect(report.allocate).toBe('failed');
    // Below the limit it allocates: the limit, not the sandbox, refused the 512 MiB.
    expect((await probe(daemon, 'closed', { allocateMiB: 64 })).allocate).toBe('ok');
  });

  it('declared home paths are given as declared (read-only or writable), a protected folder inside one is hidden, and a variable named in the block passes', async () => {
    const user = await userHome();
    await mkdir(join(user, 'site'));
    // A symlink that leads into .ssh is refused like .ssh itself.
    await symlink(join(user, '.ssh'), join(user, 'keys'));
    const { daemon } = await start(user, 'required', { PROBE_PASSED: 'yes' });
    const installed = await install(
      daemon,
      await probeRelease('declared', {
        sandbox: {
          filesystem: { read: ['~/notes', '~/keys', '~/.config'], write: ['~/site'] },
          env: ['PROBE_PASSED'],
        },
      }),
    );
    expect(installed.sandbox.home).toMatchObject({
      read: ['~/notes', '~/keys', '~/.config'],
      write: ['~/site'],
    });
    expect(installed.sandbox.env).toContain('PROBE_PASSED');
    // The symlink into .ssh was not given, and the view says why.
    expect(installed.sandbox.home.refused).toEqual([
      {
        path: '~/keys',
        reason: 'it resolves to a folder that holds keys, credentials or browser data',
      },
    ]);
    const read = (path: string, write?: string, variable = 'PROBE_PASSED') =>
      probe(daemon, 'declared', { read: path, variable, ...(write && { write }) });
    const notes = await read(join(user, 'notes', 'todo.txt'), join(user, 'notes', 'new.txt'));
    expect(notes).toMatchObject({ readFile: 'ok', writeFile: 'EROFS', variable: 'seen' });
    const site = await read(join(user, 'canary.txt'), join(user, 'site', 'index.html'));
    expect(site).toMatchObject({ readFile: 'ENOENT', writeFile: 'ok' });
    expect(await readFile(join(user, 'site', 'index.html'), 'utf8')).toBe('x');
    expect((await read(join(user, '.config', 'app', 'settings.json'))).readFile).toBe('ok');
    expect((await read(join(user, '.config', 'gh', 'hosts.yml'))).readFile).toBe('ENOENT');
    expect((await read(join(user, 'keys', 'id_test'))).readFile).toBe('ENOENT');
    expect((await read(join(user, '.ssh', 'id_test'))).readFile).toBe('ENOENT');
  });

  it('a server that writes into its release as it starts fails with the error that names the state folder', async () => {
    const user = await userHome();
    const { daemon } = await start(user, 'required');
    const installed = await install(
      daemon,
      await probeRelease('writer', { env: { PROBE_WRITE_AT_START: '1' } }),
    );
    expect(installed.runtime.state).toBe('failed');
    expect(installed.runtime.lastError).toBe(
      'The MCP server of connector "writer" stopped after it tried to write inside its release folder, which is read-only: have it write to its state folder, named by $TUTTI_CONNECTOR_STATE_DIR (docs/sandbox.md).',
    );
    expect(installed.runtime.stderr.join('\n')).toContain('EROFS');
  });

  it("with --sandbox off the same server reads the user's home (isolation is what kept it out) and still runs in its state folder", async () => {
    const user = await userHome();
    const { home, daemon } = await start(user, 'off');
    const installed = await install(daemon, await probeRelease('open'));
    expect(installed.sandbox).toMatchObject({ isolation: 'off' });
    const report = await probe(daemon, 'open', {
      read: join(user, 'canary.txt'),
      variable: 'PROBE_SECRET',
    });
    const state = join(home, 'connector-data', 'open');
    // Its state folder is there without isolation too.
    expect(report).toMatchObject({
      cwd: state,
      stateDir: state,
      readFile: 'ok',
      writeInState: 'ok',
    });
  });

  it('an upgrade keeps the state folder and an uninstall removes it', async () => {
    const user = await userHome();
    const { home, daemon } = await start(user, 'required');
    await install(daemon, await probeRelease('kept'));
    await probe(daemon, 'kept', {});
    const kept = join(home, 'connector-data', 'kept', 'kept.txt');
    expect(existsSync(kept)).toBe(true);
    const next = await probeRelease('kept');
    const manifest = JSON.parse(await readFile(join(next, 'tutti-connector.json'), 'utf8'));
    await writeFile(
      join(next, 'tutti-connector.json'),
      JSON.stringify({ ...manifest, version: '1.1.0' }),
    );
    const upgraded = await install(daemon, next);
    expect(upgraded.runtime.running.version).toBe('1.1.0');
    expect(existsSync(kept)).toBe(true);
    const { status } = await daemon.control('DELETE', '/v1/connectors/kept');
    expect(status).toBe(200);
    expect(existsSync(join(home, 'connector-data', 'kept'))).toBe(false);
  });

  describe('where bubblewrap is missing', () => {
    /** A PATH with node and nothing else: no bwrap on it. */
    async function pathWithoutBwrap(): Promise<string> {
      const bin = join(await homes.make(), 'bin');
      await mkdir(bin);
      await symlink(process.execPath, join(bin, 'node'));
      return bin;
    }

    it('--sandbox required starts no server: the connector is failed with the code and its advice, it serves no tool, and the log says so once', async () => {
      const user = await userHome();
      const { home, daemon } = await start(user, 'required', { PATH: await pathWithoutBwrap() });
      const installed = await install(daemon, await probeRelease('probe'));
      expect(installed.runtime.state).toBe('failed');
      expect(installed.runtime.lastError).toMatch(
        /tuttid runs with --sandbox required and cannot isolate it here \(bwrap \(bubblewrap\) is not on PATH\)\. Install bubblewrap/,
      );
      expect(installed.runtime.advice).toBeDefined();
      expect(installed.sandbox).toMatchObject({ isolation: 'refused' });
      const { body } = await daemon.control('GET', '/v1/connectors');
      expect(body.sandbox).toEqual({
        mode: 'required',
        unavailable: 'bwrap (bubblewrap) is not on PATH',
      });
      const binding = {
        url: daemon.ready.mcpUrl,
        headers: { authorization: `Bearer ${await token(daemon)}` },
      };
      const listed = await mcpRequest(binding, 'tools/list', {});
      expect(listed.body.result.tools).toEqual([]);
      // No retry follows: the one failure stays the one line.
      await sleep(1500);
      const log = await readFile(join(home, 'logs', 'tuttid.log'), 'utf8');
      expect(
        log.split('\n').filter((line) => line.includes('was not started: tuttid runs')),
      ).toHaveLength(1);
      expect(log).toContain('no connector server will start (--sandbox required)');
    });

    it('--sandbox auto runs the server as before and says it is not isolated', async () => {
      const user = await userHome();
      const { home, daemon } = await start(user, 'auto', { PATH: await pathWithoutBwrap() });
      const installed = await install(daemon, await probeRelease('probe'));
      expect(installed.runtime.state).toBe('ready');
      expect(installed.sandbox).toMatchObject({ isolation: 'not-isolated' });
      expect((await probe(daemon, 'probe', { read: join(user, 'canary.txt') })).readFile).toBe(
        'ok',
      );
      const log = await readFile(join(home, 'logs', 'tuttid.log'), 'utf8');
      expect(
        log.split('\n').filter((line) => line.includes('connector servers run without isolation')),
      ).toHaveLength(1);
    });
  });
});
