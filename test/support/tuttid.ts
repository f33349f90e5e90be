/**
 * Test harness for a real `tuttid` process (run from sources): start it on a home, wait for
 * its ready line (servers listening) or its settled line (connectors up), call its control
 * API, and stop or kill it. Every process it starts is
 * killed in {@link stopAll}.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOADER = join(ROOT, 'test/fixtures/upstream/ts-loader.mjs');
const ENTRY = join(ROOT, 'test/support/tuttid-from-source.mjs');
/** The built `tuttid` bin, as a person runs it (`npm test` builds it first). */
const BIN = join(ROOT, 'cli/bin/tuttid.js');

/** The daemon's `--json` ready line. */
export interface ReadyLine {
  event: 'ready';
  pid: number;
  home: string;
  controlUrl: string;
  mcpUrl: string;
  /** The dashboard's one-time login link. */
  dashboardLogin: string;
  connectors: { key: string; state: string; toolCount: number }[];
}

/**
 * The daemon's `--json` settled line, printed once every connector installed at start
 * made its first attempt (the ready line comes before, as soon as the servers listen).
 */
export interface SettledLine {
  event: 'settled';
  connectors: { key: string; state: string; toolCount: number }[];
}

/** A running daemon process. */
export interface TuttidProcess {
  readonly child: ChildProcess;
  readonly ready: ReadyLine;
  /** Resolves with the settled line (undefined if the process exits first). */
  readonly settled: Promise<SettledLine | undefined>;
  readonly stderr: () => string;
  readonly stdout: () => string;
  /** Calls the control API with the daemon's control token. */
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test's assertions
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Resolves with the exit code or signal once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The control token (for clients the harness does not wrap, e.g. the event stream). */
  readonly controlToken: string;
}

const started: ChildProcess[] = [];

/** A `tuttid` process just spawned: what became of it is still open. */
export interface LaunchedTuttid {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly stdout: () => string;
  /** Resolves with the exit code or signal once the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the ready line, or with undefined when the process exits before one. */
  readonly ready: Promise<ReadyLine | undefined>;
  /** Resolves with the settled line, or with undefined when the process exits before one. */
  readonly settled: Promise<SettledLine | undefined>;
}

/** How {@link launchTuttid} starts the daemon. */
export interface LaunchOptions {
  /** Without `--json` (false): the daemon prints its banner; no ready line is read then. */
  readonly json?: boolean;
  /** A command and its arguments to run the daemon under (e.g. `setpriv` dropping capabilities). */
  readonly wrap?: readonly string[];
}

/** Spawns `tuttid --json` on `home` with extra args, without waiting for anything. */
export function launchTuttid(
  home: string,
  args: string[] = [],
  { json = true, wrap = [] }: LaunchOptions = {},
): LaunchedTuttid {
  const [command, ...wrapArgs] = [...wrap, process.execPath];
  const child = spawn(
    command!,
    [
      ...wrapArgs,
      '-C',
      'tutti-source',
      '--import',
      LOADER,
      ENTRY,
      '--home',
      home,
      ...(json ? ['--json'] : []),
      ...args,
    ],
    { cwd: ROOT, env: { ...process.env, TUTTI_HOME: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  started.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let onReady!: (line: ReadyLine | undefined) => void;
  let onSettled!: (line: SettledLine | undefined) => void;
  const ready = new Promise<ReadyLine | undefined>((resolve) => {
    onReady = resolve;
  });
  const settled = new Promise<SettledLine | undefined>((resolve) => {
    onSettled = resolve;
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    out += `${line}\n`;
    if (line.startsWith('{"event":"ready"')) onReady(JSON.parse(line) as ReadyLine);
    if (line.startsWith('{"event":"settled"')) onSettled(JSON.parse(line) as SettledLine);
  });
  void exited.then(() => {
    onReady(undefined);
    onSettled(undefined);
  });
  return { child, stderr: () => err, stdout: () => out, exited, ready, settled };
}

/**
 * Starts `tuttid --json` on `home` with extra args and resolves once its connectors
 * settled (`until: 'ready'`: as soon as it is ready, while they may still be starting);
 * rejects if it exits before.
 */
export async function startTuttid(
  home: string,
  args: string[] = [],
  { until = 'settled', wrap }: { until?: 'ready' | 'settled'; wrap?: readonly string[] } = {},
): Promise<TuttidProcess> {
  const launched = launchTuttid(home, args, { ...(wrap && { wrap }) });
  const ready = await launched.ready;
  const reached = until === 'ready' ? ready : ready && (await launched.settled);
  if (!ready || !reached) {
    const { code, signal } = await launched.exited;
    throw new Error(`tuttid exited (${code ?? signal}) before ${until}:\n${launched.stderr()}`);
  }
  return attachTuttid(home, launched, ready);
}

/** The harness of a launched daemon that printed `ready` (its control file is read now). */
export async function attachTuttid(
  home: string,
  launched: LaunchedTuttid,
  ready: ReadyLine,
): Promise<TuttidProcess> {
  const info = JSON.parse(await readFile(join(home, 'run', 'daemon.json'), 'utf8')) as {
    controlToken: string;
  };
  return {
    child: launched.child,
    ready,
    settled: launched.settled,
    controlToken: info.controlToken,
    stderr: launched.stderr,
    stdout: launched.stdout,
    exited: launched.exited,
    async control(method, path, body) {
      const response = await fetch(`${ready.controlUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${info.controlToken}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Metrics are plain text.
      }
      return { status: response.status, body: parsed };
    },
  };
}

/** One installed connector as `GET /v1/connectors` shows it. */
export interface ConnectorEntry {
  key: string;
  authReady: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: the runtime status is checked by each test's assertions
  runtime: any;
}

/**
 * Polls `GET /v1/connectors` until `key`'s runtime state is one of `states` (connectors
 * come up after the daemon is ready) and returns that entry.
 */
export async function waitForConnector(
  daemon: Pick<TuttidProcess, 'control'>,
  key: string,
  states: readonly string[] = ['ready'],
): Promise<ConnectorEntry> {
  for (;;) {
    const { body } = await daemon.control('GET', '/v1/connectors');
    const entry = (body.connectors as ConnectorEntry[]).find((c) => c.key === key);
    if (entry?.runtime && states.includes(entry.runtime.state)) return entry;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What a command printed and how it ended. */
export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built `tuttid` bin with `args` (an operator command: `status`, `dashboard`) to
 * its end, as a person types it; `TUTTI_HOME` is unset unless `env` sets it.
 */
export function runTuttidCommand(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CommandResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, TUTTI_HOME: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Sends SIGKILL to every daemon still running (afterEach). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    started.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }),
  );
}
