/**
 * Agents start the same however the daemon was started: `tuttid` run as `node
 * cli/bin/tuttid.js` from another folder, with PATH holding only the system folders and
 * node's, still finds Codex (the npm package beside the daemon) and binds its session; and
 * the PATH an agent gets never holds the daemon's own install (`node_modules/.bin`, which
 * `npm start` adds) nor npm's variables, for a daemon-driven agent and for the host-driven
 * prepare form alike.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, writeRelease } from '@tutti/test-kit';
import { type AgentTestEnv, createAgentTestEnv } from '@tutti/test-kit/agent-env';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TUTTID = join(ROOT, 'cli', 'bin', 'tuttid.js');

interface Started {
  readonly child: ChildProcess;
  readonly controlUrl: string;
  readonly token: string;
}

const children: ChildProcess[] = [];
const envs: AgentTestEnv[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  for (const env of envs.splice(0)) await env.dispose();
  await cleanUp();
});

/** Starts the built `tuttid` with exactly `env`, from `cwd`; resolves once it is ready. */
async function startBuilt(env: Record<string, string>, cwd: string, home: string) {
  const child = spawn(process.execPath, [TUTTID, '--home', home, '--json', '--no-demo'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<{ controlUrl: string }>((resolve, reject) => {
    lines.on('line', (line) => {
      const parsed = JSON.parse(line) as { event?: string; controlUrl?: string };
      if (parsed.event === 'ready') resolve(parsed as { controlUrl: string });
    });
    child.once('exit', (code) => reject(new Error(`tuttid exited ${code}: ${stderr}`)));
  });
  const info = JSON.parse(await readFile(join(home, 'run', 'daemon.json'), 'utf8')) as {
    controlToken: string;
  };
  return { child, controlUrl: ready.controlUrl, token: info.controlToken } satisfies Started;
}

async function control(daemon: Started, method: string, path: string, body?: unknown) {
  const response = await fetch(`${daemon.controlUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${daemon.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The PATH entries of the process `pid`'s environment, and whether npm's variables are there. */
async function environOf(pid: number): Promise<Record<string, string>> {
  const text = await readFile(`/proc/${pid}/environ`, 'utf8');
  return Object.fromEntries(
    text
      .split('\0')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** A user's Codex folder whose config reaches no network (no model call is made here). */
async function codexHome(env: AgentTestEnv): Promise<string> {
  const home = join(env.root, 'codex-home');
  await mkdir(home, { recursive: true });
  await writeFile(
    join(home, 'config.toml'),
    'model = "scripted-model"\nmodel_provider = "scripted"\n\n[features]\nplugins = false\n\n[model_providers.scripted]\nname = "scripted"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n',
  );
  return home;
}

describe('agents start the same however the daemon was started', () => {
  it('binds a codex session of a tuttid run with node from another folder and a bare PATH', async () => {
    const env = await createAgentTestEnv();
    envs.push(env);
    const home = join(env.root, 'tutti-home');
    const bare = `/usr/bin:/bin:${dirname(process.execPath)}`;
    const daemon = await startBuilt(
      { ...env.env, PATH: bare, CODEX_HOME: await codexHome(env), TMPDIR: env.root },
      env.home,
      home,
    );
    const installed = await control(daemon, 'POST', '/v1/connectors/install', {
      path: await writeRelease({ key: 'first', serverArgs: [] }),
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    const started = await control(daemon, 'POST', '/v1/sessions', {
      provider: 'codex',
      workspaceId: 'ws-bare',
      cwd: env.cwd,
      env: { OPENAI_API_KEY: 'test-key' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const session = started.body.session as { status: string; connector: string; pid: number };
    expect(session).toMatchObject({ status: 'ready', connector: 'bound' });
    const agentPath = (await environOf(session.pid)).PATH!.split(':');
    expect(agentPath.slice(1)).toEqual(bare.split(':'));
  }, 120_000);

  it("keeps the daemon's install and npm's variables out of every agent's environment, as npm start would set them", async () => {
    const env = await createAgentTestEnv();
    envs.push(env);
    const home = join(env.root, 'tutti-home');
    // What `npm start` gives the daemon: the project's node_modules/.bin and those above it first.
    const npmPath = [
      join(ROOT, 'node_modules', '.bin'),
      join(dirname(ROOT.replace(/\/$/, '')), 'node_modules', '.bin'),
      '/node_modules/.bin',
      '/usr/bin',
      '/bin',
      dirname(process.execPath),
    ].join(':');
    const daemon = await startBuilt(
      {
        ...env.env,
        PATH: npmPath,
        CODEX_HOME: await codexHome(env),
        TMPDIR: env.root,
        npm_lifecycle_event: 'start',
        npm_package_name: 'tutti-connector',
        INIT_CWD: ROOT,
      },
      ROOT,
      home,
    );
    await control(daemon, 'POST', '/v1/connectors/install', {
      path: await writeRelease({ key: 'first', serverArgs: [] }),
    });
    const started = await control(daemon, 'POST', '/v1/sessions', {
      provider: 'codex',
      workspaceId: 'ws-npm',
      cwd: env.cwd,
      env: { OPENAI_API_KEY: 'test-key' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const agent = await environOf((started.body.session as { pid: number }).pid);
    expect(agent.PATH!.split(':').filter((entry) => entry.includes('node_modules'))).toEqual([]);
    expect(
      Object.keys(agent).filter((name) => name.startsWith('npm_') || name === 'INIT_CWD'),
    ).toEqual([]);

    // The host-driven prepare form with no env of its own: the same cleaned PATH, shims first.
    const prepared = await control(daemon, 'POST', '/v1/sessions', {
      workspaceId: 'ws-npm-host',
      cwd: env.cwd,
    });
    expect(prepared.status).toBe(200);
    const runtime = prepared.body.runtime as { env: { PATH: string } };
    const entries = runtime.env.PATH.split(':');
    expect(entries[0]).toBe(join(home, 'bin'));
    expect(entries.slice(1)).toEqual(['/usr/bin', '/bin', dirname(process.execPath)]);
  }, 120_000);
});
