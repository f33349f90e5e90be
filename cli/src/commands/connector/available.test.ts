import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type ConnectorSummary, INTERFACE_ADVICE } from '@tutti/core/client';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import ConnectorAvailable from './available.js';

const CLI_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(CLI_ROOT, 'bin', 'tutti.js');
const RELEASE_PATH = '/state/releases/sha256-0f1e2d/bin/gh';

const CONNECTORS: ConnectorSummary[] = [
  {
    key: 'github',
    name: 'GitHub',
    description: 'GitHub repository and issue operations',
    skills: [
      { name: 'github-workflow', title: 'GitHub Workflow', description: 'Work with pull requests' },
    ],
    interfaces: [
      { kind: 'mcp', serverName: 'connector', toolPrefix: 'github_', status: 'ready' },
      { kind: 'cli', command: 'tutti-connector-github', status: 'ready' },
    ],
  },
  {
    key: 'notion',
    name: 'Notion',
    description: 'Pages and databases',
    skills: [],
    interfaces: [
      {
        kind: 'mcp',
        serverName: 'connector',
        toolPrefix: 'notion_',
        status: 'starting',
        advice: INTERFACE_ADVICE.starting,
      },
    ],
  },
  {
    key: 'keyed',
    name: 'Keyed',
    description: 'Needs a key',
    skills: [],
    interfaces: [
      {
        kind: 'mcp',
        serverName: 'connector',
        toolPrefix: 'keyed_',
        status: 'needs-auth',
        advice: INTERFACE_ADVICE['needs-auth'],
      },
      {
        kind: 'cli',
        command: 'tutti-connector-keyed',
        status: 'needs-auth',
        advice: INTERFACE_ADVICE['needs-auth'],
      },
    ],
  },
];

/** A stand-in for the daemon's control API, on 127.0.0.1, with one bearer token. */
interface FakeDaemon {
  server: Server;
  url: string;
  port: number;
  token: string;
  seen: { path: string | undefined; authorization: string | undefined }[];
  answer: { status: number; body: string };
}

async function startFakeDaemon(): Promise<FakeDaemon> {
  const fake = {
    token: randomBytes(24).toString('hex'),
    seen: [],
    answer: { status: 200, body: JSON.stringify({ connectors: CONNECTORS }) },
  } as unknown as FakeDaemon;
  fake.server = createServer((request, response) => {
    fake.seen.push({ path: request.url, authorization: request.headers.authorization });
    const authorized = request.headers.authorization === `Bearer ${fake.token}`;
    if (request.url !== '/v1/connectors/available') response.writeHead(404).end();
    else if (!authorized) response.writeHead(401).end('{"error":"unauthorized"}');
    else
      response
        .writeHead(fake.answer.status, { 'content-type': 'application/json' })
        .end(fake.answer.body);
  });
  await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  fake.port = (fake.server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${fake.port}`;
  return fake;
}

async function writeDaemonInfo(home: string, info: Record<string, unknown>): Promise<void> {
  await mkdir(join(home, 'run'), { recursive: true });
  await writeFile(join(home, 'run', 'daemon.json'), JSON.stringify(info), { mode: 0o600 });
}

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

let fake: FakeDaemon;
let dir: string;
let home: string;

beforeEach(async () => {
  fake = await startFakeDaemon();
  dir = await mkdtemp(join(tmpdir(), 'tutti-cli-'));
  home = join(dir, 'tutti home');
  await writeDaemonInfo(home, { pid: process.pid, controlUrl: fake.url, controlToken: fake.token });
});

afterEach(async () => {
  await new Promise((resolve) => fake.server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Everything a run printed or threw must be free of these. */
function expectNoLeak(text: string): void {
  expect(text).not.toContain(fake.token);
  expect(text).not.toContain(String(fake.port));
  expect(text).not.toMatch(/https?:\/\/|127\.0\.0\.1|localhost|bearer|authorization|oauth/i);
  expect(text).not.toContain(RELEASE_PATH);
  expect(text).not.toContain(home);
}

describe('ConnectorAvailable run in process', () => {
  let printed: string[];
  const savedExitCode = process.exitCode;

  beforeEach(() => {
    printed = [];
    const keep = (...args: unknown[]) => void printed.push(args.map(String).join(' '));
    vi.spyOn(console, 'log').mockImplementation(keep);
    vi.spyOn(console, 'error').mockImplementation(keep);
  });

  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = savedExitCode;
  });

  async function runIt(
    argv: string[],
  ): Promise<{ result?: unknown; error?: Error; output: string }> {
    try {
      const result = await ConnectorAvailable.run(argv, CLI_ROOT);
      return { result, output: printed.join('\n') };
    } catch (error) {
      return { error: error as Error, output: printed.join('\n') };
    }
  }

  it('returns exactly the documented shape with --json, asking with the control token', async () => {
    const { result, output } = await runIt(['--json', '--home', home]);
    expect(result).toEqual({ connectors: CONNECTORS });
    expect(JSON.parse(output)).toEqual({ connectors: CONNECTORS });
    expect(fake.seen).toEqual([
      { path: '/v1/connectors/available', authorization: `Bearer ${fake.token}` },
    ]);
    expectNoLeak(output);
  });

  it('prints a table of connector, offers, status, CLI command and skills', async () => {
    const { output } = await runIt(['--home', home]);
    const lines = output.split('\n');
    expect(lines[0]).toMatch(/^CONNECTOR\s+OFFERS\s+STATUS\s+CLI COMMAND\s+SKILLS$/);
    expect(lines[1]).toMatch(
      /^GitHub \(github\)\s+MCP tools github_\*, CLI, Skills\s+ready\s+tutti-connector-github\s+github-workflow$/,
    );
    expect(lines[2]).toMatch(/^Notion \(notion\)\s+MCP tools notion_\*\s+mcp starting\s+-\s+-$/);
    expect(lines[3]).toMatch(
      /^Keyed \(keyed\)\s+MCP tools keyed_\*, CLI\s+mcp needs-auth, cli needs-auth\s+tutti-connector-keyed\s+-$/,
    );
    expect(output).toContain('github: GitHub repository and issue operations');
    expectNoLeak(output);
  });

  it('says under each connector what to do about each interface that is not ready', async () => {
    const { output } = await runIt(['--home', home]);
    const tail = output.slice(output.indexOf('github: '));
    expect(tail.split('\n')).toEqual([
      'github: GitHub repository and issue operations',
      'notion: Pages and databases',
      `  mcp starting: ${INTERFACE_ADVICE.starting}`,
      'keyed: Needs a key',
      `  mcp needs-auth: ${INTERFACE_ADVICE['needs-auth'].replaceAll('{key}', 'keyed')}`,
      `  cli needs-auth: ${INTERFACE_ADVICE['needs-auth'].replaceAll('{key}', 'keyed')}`,
    ]);
    expect(output).toContain('PUT /v1/connectors/keyed/credentials');
  });

  it('says how to install a connector through the control API when none is installed', async () => {
    fake.answer = { status: 200, body: JSON.stringify({ connectors: [] }) };
    const { output } = await runIt(['--home', home]);
    expect(output).toContain('No connectors are installed.');
    expect(output).toContain('POST /v1/connectors/install');
    expectNoLeak(output);
  });

  it('finds the home in $TUTTI_HOME when no --home is given', async () => {
    vi.stubEnv('TUTTI_HOME', home);
    try {
      expect((await runIt(['--json'])).result).toEqual({ connectors: CONNECTORS });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('says how to start a daemon when there is no daemon file', async () => {
    const { error, output } = await runIt(['--home', join(dir, 'empty home')]);
    expect(error?.message).toMatch(/No tutti daemon is running.*`npm start` or `tuttid`/);
    expect((error as { oclif?: { exit?: number } }).oclif?.exit).toBe(1);
    expectNoLeak(`${error?.message}\n${output}`);
  });

  it('says no daemon runs when the daemon file names a dead pid', async () => {
    await writeDaemonInfo(home, {
      pid: await deadPid(),
      controlUrl: fake.url,
      controlToken: fake.token,
    });
    const { error } = await runIt(['--home', home]);
    expect(error?.message).toContain('No tutti daemon is running');
    expect(fake.seen).toEqual([]);
  });

  it('says no daemon runs when the control port refuses the connection', async () => {
    await new Promise((resolve) => fake.server.close(resolve));
    fake.server = createServer();
    const { error } = await runIt(['--home', home]);
    expect(error?.message).toContain('No tutti daemon is running');
    expectNoLeak(`${error?.message}\n${JSON.stringify(error)}`);
  });

  it('reports a refused token without printing it', async () => {
    await writeDaemonInfo(home, {
      pid: process.pid,
      controlUrl: fake.url,
      controlToken: 'wrong-token-value',
    });
    const { error, output } = await runIt(['--home', home]);
    expect(error?.message).toContain('The tutti daemon refused the request (HTTP 401)');
    expectNoLeak(`${error?.message}\n${output}`);
    expect(`${error?.message}${output}`).not.toContain('wrong-token-value');
  });

  it('reports an answer that is not the spec shape, in JSON too, without leaking it', async () => {
    fake.answer.body = JSON.stringify({
      connectors: [{ ...CONNECTORS[0], releasePath: RELEASE_PATH, url: `${fake.url}/mcp` }],
    });
    const { output } = await runIt(['--json', '--home', home]);
    expect(JSON.parse(output)).toEqual({
      error: {
        code: 'TUTTI_ERR_CLI_DAEMON_BAD_RESPONSE',
        message: expect.stringContaining('data this CLI does not understand'),
      },
    });
    expect(process.exitCode).toBe(1);
    expectNoLeak(output);
  });

  it('never sends the token to a control URL that is not loopback', async () => {
    await writeDaemonInfo(home, {
      pid: process.pid,
      controlUrl: `http://example.com:${fake.port}`,
      controlToken: fake.token,
    });
    const { error } = await runIt(['--home', home]);
    expect(error?.message).toContain('No tutti daemon is running');
  });
});

describe('the tutti bin as a real process', () => {
  const run = promisify(execFile);
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // The bin runs the compiled commands (as installed), so build them first: incremental,
    // fast when up to date. tsc -b exits non-zero on a type error anywhere in the tree but
    // still emits, so its exit code is not this test's business.
    await run('npx', ['tsc', '-b', CLI_ROOT], { cwd: CLI_ROOT }).catch(() => undefined);
  }, 120_000);

  beforeEach(async () => {
    env = {
      PATH: process.env.PATH,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'xdg-config'),
      XDG_DATA_HOME: join(dir, 'xdg-data'),
      XDG_CACHE_HOME: join(dir, 'xdg-cache'),
      TUTTI_HOME: home,
    };
  });

  async function tutti(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it('runs `tutti connector available --json` against the daemon', async () => {
    const result = await tutti(['connector', 'available', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ connectors: CONNECTORS });
    expectNoLeak(result.stdout + result.stderr);
  });

  it('exits non-zero and says how to start a daemon when none runs', async () => {
    await writeDaemonInfo(home, {
      pid: await deadPid(),
      controlUrl: fake.url,
      controlToken: fake.token,
    });
    for (const args of [
      ['connector', 'available'],
      ['connector', 'available', '--json'],
    ]) {
      const result = await tutti(args);
      expect(result.code).not.toBe(0);
      // oclif wraps error lines at 80 columns with a ` ›` gutter.
      const text = `${result.stdout}${result.stderr}`.replace(/\n\s*›\s+/g, ' ');
      expect(text).toContain('No tutti daemon is running for this tutti home');
      expect(text).toContain('`npm start` or `tuttid`');
      expectNoLeak(text);
    }
  });

  it.each([
    ['connector', 'capabilities'],
    ['connector', 'skills'],
    ['connector', 'skill', 'read', 'github-workflow'],
    ['connector', 'invoke', 'github', '{}'],
    ['connector', 'list'],
  ])('answers `tutti %s %s` with command-not-found', async (...args) => {
    const result = await tutti(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/command connector:\S+ not found/);
    expect(fake.seen).toEqual([]);
  });

  it('lists only `available` under the connector topic', async () => {
    const result = await tutti(['connector', '--help']);
    expect(result.stdout).toContain('connector available');
    expect(result.stdout).not.toMatch(/capabilities|skill read|invoke/);
  });
});
