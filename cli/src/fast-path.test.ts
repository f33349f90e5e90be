/**
 * The bin's fast path of `tutti connector available`: it prints exactly what the oclif
 * command prints, leaves everything else to oclif without printing, and loads none of
 * oclif, zod, fastify or an MCP SDK. And the oclif manifest it reads is the commands' own.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RECORD_MODULES as RECORD } from '@tutti/test-kit';
import ConnectorAvailable from './commands/connector/available.js';
import { runWithoutOclif } from './fast-path.js';
import { INTERFACE_ADVICE } from '@tutti/core/client';

const CLI_ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(CLI_ROOT, 'bin', 'tutti.js');
const run = promisify(execFile);

const CONNECTORS = [
  {
    key: 'github',
    name: 'GitHub 100%% sure',
    description: 'GitHub issues, 50% off',
    skills: [{ name: 'github-workflow', title: 'GitHub Workflow', description: 'PRs' }],
    interfaces: [
      { kind: 'mcp', serverName: 'connector', toolPrefix: 'github_', status: 'ready' },
      {
        kind: 'cli',
        command: 'tutti-connector-github',
        status: 'starting',
        advice: INTERFACE_ADVICE.starting,
      },
    ],
  },
];

let server: Server;
let dir: string;
let home: string;
const token = randomBytes(16).toString('hex');
let requests = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    requests += 1;
    if (request.headers.authorization !== `Bearer ${token}`) response.writeHead(401).end();
    else
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ connectors: CONNECTORS }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  dir = await mkdtemp(join(tmpdir(), 'tutti-fast-path-'));
  home = join(dir, 'home');
  await mkdir(join(home, 'run'), { recursive: true });
  const { port } = server.address() as AddressInfo;
  await writeFile(
    join(home, 'run', 'daemon.json'),
    JSON.stringify({
      pid: process.pid,
      controlUrl: `http://127.0.0.1:${port}`,
      controlToken: token,
    }),
    { mode: 0o600 },
  );
  // The bin runs the compiled code; tsc -b is incremental (its exit code is not ours).
  await run('npx', ['tsc', '-b', CLI_ROOT], { cwd: CLI_ROOT }).catch(() => undefined);
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** What `fn` printed through console.log, and its result. */
async function printed<T>(fn: () => Promise<T>): Promise<{ result: T; output: string }> {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  });
  try {
    return { result: await fn(), output: lines.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('runWithoutOclif', () => {
  it.each([[[]], [['--json']], [['--json', '--home']]])(
    'prints what the oclif command prints for %j',
    async (flags) => {
      const argv = flags.at(-1) === '--home' ? [...flags, home] : [...flags, '--home', home];
      const fast = await printed(() => runWithoutOclif(['connector', 'available', ...argv], {}));
      const oclif = await printed(() => ConnectorAvailable.run(argv, CLI_ROOT));
      expect(fast.result).toBe(true);
      expect(fast.output).toBe(oclif.output);
      expect(fast.output).toContain('github');
    },
  );

  it('takes --home=<dir> and $TUTTI_HOME as oclif does', async () => {
    const inline = await printed(() =>
      runWithoutOclif(['connector', 'available', `--home=${home}`], {}),
    );
    const fromEnv = await printed(() =>
      runWithoutOclif(['connector', 'available'], { TUTTI_HOME: home }),
    );
    expect(inline.result).toBe(true);
    expect(fromEnv.output).toBe(inline.output);
  });

  it.each([
    ['help', ['connector', 'available', '--help']],
    ['a short flag', ['connector', 'available', '-h']],
    ['an unknown flag', ['connector', 'available', '--all']],
    ['a positional', ['connector', 'available', 'extra']],
    ['a repeated --home', ['connector', 'available', '--home', 'a', '--home', 'b']],
    ['an empty --home', ['connector', 'available', '--home', '']],
    ['--home without a value', ['connector', 'available', '--home']],
    ['a -- terminator', ['connector', 'available', '--']],
    ['another command', ['connector', 'capabilities']],
    ['the colon form', ['connector:available']],
    ['no command', []],
  ])('leaves %s to oclif without printing or asking the daemon', async (_what, argv) => {
    const before = requests;
    const { result, output } = await printed(() => runWithoutOclif(argv, {}));
    expect(result).toBe(false);
    expect(output).toBe('');
    expect(requests).toBe(before);
  });

  it('leaves an error to oclif, printing nothing', async () => {
    const { result, output } = await printed(() =>
      runWithoutOclif(['connector', 'available', '--home', join(dir, 'no daemon here')], {}),
    );
    expect(result).toBe(false);
    expect(output).toBe('');
  });

  it('leaves --json to a terminal and TUTTI_CONTENT_TYPE to oclif', async () => {
    const argv = ['connector', 'available', '--json', '--home', home];
    expect((await printed(() => runWithoutOclif(argv, {}, { isTTY: true }))).result).toBe(false);
    const typed = ['connector', 'available', '--home', home];
    expect(
      (await printed(() => runWithoutOclif(typed, { TUTTI_CONTENT_TYPE: 'json' }))).result,
    ).toBe(false);
  });
});

describe('the tutti bin on its fast path', () => {
  it('answers `connector available` loading none of oclif, zod, fastify or an MCP SDK', async () => {
    const log = join(dir, `modules-${randomBytes(4).toString('hex')}.log`);
    const env = { PATH: process.env.PATH, HOME: dir, TUTTI_HOME: home, TUTTI_TEST_MODULE_LOG: log };
    const { stdout } = await run(
      process.execPath,
      ['--import', RECORD, BIN, 'connector', 'available'],
      {
        env,
      },
    );
    expect(stdout).toContain('GitHub');
    const loaded = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    expect(loaded.some((entry) => entry.includes('/dist/fast-path.js'))).toBe(true);
    const heavy = loaded.filter((entry) =>
      /@oclif|\/zod\/|fastify|@modelcontextprotocol|\/ajv\/|\/core\/(dist|src)\/server\/|pino/.test(
        entry,
      ),
    );
    expect(heavy).toEqual([]);
    // The same command with --help goes through oclif: the recorder does see oclif then.
    await run(process.execPath, ['--import', RECORD, BIN, 'connector', 'available', '--help'], {
      env: { ...env, TUTTI_TEST_MODULE_LOG: `${log}.help` },
    });
    expect(await readFile(`${log}.help`, 'utf8')).toContain('@oclif/core');
  });

  it('reads the oclif manifest the commands give (npm run -w @tutti/cli manifest)', async () => {
    // In a plain node process: oclif loads the built commands as a user's node would.
    const { stdout } = await run(process.execPath, [
      join(CLI_ROOT, 'scripts', 'oclif-manifest.mjs'),
      '--print',
    ]);
    const committed = JSON.parse(await readFile(join(CLI_ROOT, 'oclif.manifest.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(stdout));
  });
});
