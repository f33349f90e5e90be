/**
 * The installed-agent endpoints on an in-process daemon with its real installer and the
 * repository's plugins: a binary registry entry (a `.tar.gz` holding a shell wrapper of the
 * scripted ACP agent) served from loopback is installed, listed with its size and a
 * registered provider, refused removal while a session of it runs, then removed; bad bodies
 * are refused naming the field.
 */
import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { cleanUp, REPO_ROOT, SCRIPTED_ACP_AGENT, tempDir } from '@tutti/test-kit';
import { create as tarCreate } from 'tar';
import { afterEach, describe, expect, it } from 'vitest';
import { platformKey } from '../agents/index.js';
import { type Daemon, startDaemon } from './daemon.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await cleanUp();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test's assertions
type Answer = { status: number; body: any };

async function control(daemon: Daemon, method: string, path: string, body?: unknown) {
  const response = await fetch(`${daemon.info.controlUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${daemon.info.controlToken}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() } as Answer;
}

/** Serves `file` at `/agent.tar.gz` on loopback. */
async function serve(bytes: Buffer): Promise<string> {
  const server: Server = createServer((request, response) => {
    if (request.url !== '/agent.tar.gz') return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/gzip' }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent.tar.gz`;
}

/**
 * Serves `bytes` at `/held.tar.gz` on loopback once `release` is called; `asked` resolves
 * when the request arrived.
 */
async function serveHeld(bytes: Buffer) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived!: () => void;
  const asked = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server: Server = createServer((request, response) => {
    if (request.url !== '/held.tar.gz') return response.writeHead(404).end();
    arrived();
    void released.then(() =>
      response.writeHead(200, { 'content-type': 'application/gzip' }).end(bytes),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    release();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/held.tar.gz`;
  return { url, asked, release };
}

/**
 * A binary registry entry whose archive holds `agent/run`: a shell script that records its
 * arguments to $ARGS_RECORD and runs the scripted ACP agent.
 */
async function binaryEntry(root: string) {
  const source = join(root, 'archive');
  await mkdir(join(source, 'agent'), { recursive: true });
  await writeFile(
    join(source, 'agent', 'run'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > "$ARGS_RECORD"\nexec "${process.execPath}" "${SCRIPTED_ACP_AGENT}"\n`,
    { mode: 0o755 },
  );
  const archive = join(root, 'agent.tar.gz');
  await tarCreate({ gzip: true, cwd: source, portable: false, file: archive }, ['agent']);
  const bytes = await readFile(archive);
  const record = join(root, 'args.txt');
  const entry = {
    id: 'loopback-agent',
    name: 'Loopback agent',
    version: '1.0.0',
    description: 'The scripted ACP agent as a binary entry.',
    distribution: {
      binary: {
        [platformKey()]: {
          archive: await serve(bytes),
          sha256: createHash('sha256').update(bytes).digest('hex'),
          cmd: './agent/run',
          args: ['--from-entry'],
          env: { ARGS_RECORD: record, ACP_SCRIPT_RECORD: join(root, 'acp.jsonl') },
        },
      },
    },
  };
  return { entry, record, bytes };
}

async function daemonOn(home: string): Promise<Daemon> {
  const daemon = await startDaemon({ home, repoRoot: REPO_ROOT });
  cleanups.push(() => daemon.close());
  return daemon;
}

describe('the agent endpoints', () => {
  it('installs a binary entry, lists it with its size and provider, refuses removal while its session runs, then removes it', async () => {
    const root = await tempDir('tutti-agent-endpoints-');
    const home = join(root, 'home');
    const daemon = await daemonOn(home);
    const { entry, record } = await binaryEntry(root);

    const installed = await control(daemon, 'POST', '/v1/agents/install', { entry });
    expect(installed.status).toBe(200);
    expect(installed.body.agent).toMatchObject({
      id: 'loopback-agent',
      name: 'Loopback agent',
      version: '1.0.0',
      source: 'registry',
      provider: { registered: true },
      installedAt: expect.any(String),
    });
    expect(installed.body.agent.sizeBytes).toBeGreaterThan(0);
    const listed = await control(daemon, 'GET', '/v1/agents');
    expect(listed.body.agents).toEqual([installed.body.agent]);
    const providers = await control(daemon, 'GET', '/v1/providers');
    expect(providers.body.providers.map((p: { name: string }) => p.name)).toContain(
      'loopback-agent',
    );

    const cwd = join(root, 'work');
    await mkdir(cwd);
    const started = await control(daemon, 'POST', '/v1/sessions', {
      workspaceId: 'ws',
      cwd,
      provider: 'loopback-agent',
      permissions: 'agent',
    });
    expect(started.status).toBe(200);
    const session = started.body.session.id;
    // The entry's args reached the agent.
    expect((await readFile(record, 'utf8')).trim().split('\n')).toEqual(['--from-entry']);

    const inUse = await control(daemon, 'DELETE', '/v1/agents/loopback-agent');
    expect(inUse.status).toBe(409);
    expect(inUse.body.error.code).toBe('TUTTI_ERR_AGENT_IN_USE');
    expect(inUse.body.error.message).toContain(session);
    const over = await control(daemon, 'POST', '/v1/agents/install', { entry });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('TUTTI_ERR_AGENT_IN_USE');

    expect((await control(daemon, 'DELETE', `/v1/sessions/${session}`)).status).toBe(200);
    const removed = await control(daemon, 'DELETE', '/v1/agents/loopback-agent');
    expect(removed).toEqual({ status: 200, body: { removed: true } });
    expect((await control(daemon, 'GET', '/v1/agents')).body).toEqual({ agents: [] });
    const after = await control(daemon, 'GET', '/v1/providers');
    expect(after.body.providers.map((p: { name: string }) => p.name)).not.toContain(
      'loopback-agent',
    );
    expect(await readdir(join(home, 'agents'))).not.toContain('loopback-agent');

    const gone = await control(daemon, 'DELETE', '/v1/agents/loopback-agent');
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('TUTTI_ERR_AGENT_NOT_INSTALLED');
  });

  it('refuses an upgrade when a session of the agent started while it downloaded, keeping the old version', async () => {
    const root = await tempDir('tutti-agent-endpoints-');
    const daemon = await daemonOn(join(root, 'home'));
    const { entry, bytes } = await binaryEntry(root);
    expect((await control(daemon, 'POST', '/v1/agents/install', { entry })).status).toBe(200);

    const held = await serveHeld(bytes);
    const [platform, target] = Object.entries(entry.distribution.binary)[0]!;
    const newer = {
      ...entry,
      version: '2.0.0',
      distribution: { binary: { [platform]: { ...target, archive: held.url } } },
    };
    // No session runs when the request comes: the endpoint's first check lets it through.
    const upgrading = control(daemon, 'POST', '/v1/agents/install', { entry: newer });
    await held.asked;
    const cwd = join(root, 'work');
    await mkdir(cwd);
    const started = await control(daemon, 'POST', '/v1/sessions', {
      workspaceId: 'ws',
      cwd,
      provider: 'loopback-agent',
      permissions: 'agent',
    });
    expect(started.status).toBe(200);
    held.release();
    const refused = await upgrading;
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('TUTTI_ERR_AGENT_IN_USE');
    expect(refused.body.error.message).toContain(started.body.session.id);

    const listed = await control(daemon, 'GET', '/v1/agents');
    expect(listed.body.agents.map((a: { version: string }) => a.version)).toEqual(['1.0.0']);
    const agentDir = join(root, 'home', 'agents', 'loopback-agent');
    expect((await readdir(agentDir)).sort()).toEqual(['1.0.0', 'installed.json']);
    expect(
      (await control(daemon, 'DELETE', `/v1/sessions/${started.body.session.id}`)).status,
    ).toBe(200);
  });

  it.each([
    ['no form', {}, '(body)'],
    ['two forms', { id: 'a-b', entry: {} }, 'entry, id'],
    ['an unknown field', { id: 'a-b', colour: 'blue' }, 'colour'],
    ['a bad allowInstallScripts', { id: 'a-b', allowInstallScripts: 'yes' }, 'allowInstallScripts'],
    ['an id that is not one', { id: '../etc' }, 'id'],
  ])('refuses a body with %s, naming the field', async (_name, body, field) => {
    // No plugins: the body is refused before anything is looked up.
    const home = join(await tempDir('tutti-agent-endpoints-'), 'home');
    const daemon = await startDaemon({ home });
    cleanups.push(() => daemon.close());
    const answer = await control(daemon, 'POST', '/v1/agents/install', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('TUTTI_ERR_AGENT_BAD_REQUEST');
    expect(answer.body.error.message).toContain(`refused: ${field}:`);
  });
});
