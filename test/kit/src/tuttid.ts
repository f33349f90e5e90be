/**
 * A real `tuttid` process for tests (run from sources) and benches (the built bin): start
 * it on a home, read its `--json` ready line (servers listening) and settled line
 * (connectors up), call its control API, and stop or kill it. Every process
 * {@link launchTuttid} starts is stopped by {@link stopAll}.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ReadyLine, SettledLine } from '@tutti/cli/tuttid';
import { REPO_ROOT as ROOT, TS_LOADER, TUTTID_BIN as BIN, TUTTID_FROM_SOURCE } from './paths.js';

export type { ReadyLine, SettledLine };

/** One answer of the control API: its status and its body (JSON, or text for metrics). */
export interface ControlAnswer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test's assertions
  readonly body: any;
}

/** A request to a daemon's control API with its control token. */
export type ControlClient = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<ControlAnswer>;

/** The control token of the daemon running on `home` (from `<home>/run/daemon.json`). */
export async function readControlToken(home: string): Promise<string> {
  const info = JSON.parse(await readFile(join(home, 'run', 'daemon.json'), 'utf8')) as {
    controlToken: string;
  };
  return info.controlToken;
}

/**
 * A client of the control API at `controlUrl` that sends `token`; with `timeoutMs`, a
 * request that takes longer rejects.
 */
export function controlClient(
  controlUrl: string,
  token: string,
  { timeoutMs }: { timeoutMs?: number } = {},
): ControlClient {
  return async (method, path, body) => {
    const response = await fetch(`${controlUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...(timeoutMs !== undefined && { signal: AbortSignal.timeout(timeoutMs) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Metrics are plain text.
    }
    return { status: response.status, body: parsed };
  };
}

/** What a daemon printed on stdout, read line by line. */
export interface TuttidLines {
  /** Resolves with the ready line, or with undefined when the process exits before one. */
  readonly ready: Promise<ReadyLine | undefined>;
  /** Resolves with the settled line, or with undefined when the process exits before one. */
  readonly settled: Promise<SettledLine | undefined>;
  /** Everything printed on stdout so far. */
  readonly stdout: () => string;
}

/**
 * Reads `child`'s stdout for the `--json` ready and settled lines; both resolve with
 * undefined once `exited` resolves without them.
 */
export function readTuttidLines(child: ChildProcess, exited: Promise<unknown>): TuttidLines {
  let out = '';
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
  return { ready, settled, stdout: () => out };
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
  readonly control: ControlClient;
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
  /** Variables set in the daemon's environment, over this process's (e.g. `HOME`, `PATH`). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Spawns `tuttid --json` on `home` with extra args, without waiting for anything. */
export function launchTuttid(
  home: string,
  args: string[] = [],
  { json = true, wrap = [], env = {} }: LaunchOptions = {},
): LaunchedTuttid {
  const [command, ...wrapArgs] = [...wrap, process.execPath];
  const child = spawn(
    command!,
    [
      ...wrapArgs,
      '-C',
      'tutti-source',
      '--import',
      TS_LOADER,
      TUTTID_FROM_SOURCE,
      '--home',
      home,
      ...(json ? ['--json'] : []),
      // Never the user's own keychain unless a test asks for one (docs/credential-store.md).
      ...(args.some((arg) => arg.startsWith('--credential-store'))
        ? []
        : ['--credential-store', 'file']),
      // Fixture servers run from the test kit's folder, which a sandbox does not give them:
      // isolation only where a test asks for it (docs/sandbox.md).
      ...(args.some((arg) => arg.startsWith('--sandbox')) ? [] : ['--sandbox', 'off']),
      ...args,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, TUTTI_HOME: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  started.push(child);
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const { ready, settled, stdout } = readTuttidLines(child, exited);
  return { child, stderr: () => err, stdout, exited, ready, settled };
}

/**
 * Starts `tuttid --json` on `home` with extra args and resolves once its connectors
 * settled (`until: 'ready'`: as soon as it is ready, while they may still be starting);
 * rejects if it exits before.
 */
export async function startTuttid(
  home: string,
  args: string[] = [],
  {
    until = 'settled',
    wrap,
    env,
  }: {
    until?: 'ready' | 'settled';
    wrap?: readonly string[];
    env?: Readonly<Record<string, string>>;
  } = {},
): Promise<TuttidProcess> {
  const launched = launchTuttid(home, args, { ...(wrap && { wrap }), ...(env && { env }) });
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
  const controlToken = await readControlToken(home);
  return {
    child: launched.child,
    ready,
    settled: launched.settled,
    controlToken,
    stderr: launched.stderr,
    stdout: launched.stdout,
    exited: launched.exited,
    control: controlClient(ready.controlUrl, controlToken),
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

/**
 * Opens a prepare-only session `agentSessionId` (workspace `ws`) and answers its binding:
 * the `connector` server's URL and the session's bearer header, as an agent gets them.
 */
export async function sessionBinding(
  daemon: Pick<TuttidProcess, 'control' | 'ready'>,
  agentSessionId: string,
): Promise<{ url: string; headers: Record<string, string> }> {
  const { body } = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    agentSessionId,
    cwd: '/tmp',
  });
  return { url: daemon.ready.mcpUrl, headers: body.runtime.mcpServers[0].headers };
}

/** What a command printed and how it ended. */
export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `command args` in the repository to its end, as a person types it, and answers what
 * it printed; `TUTTI_HOME` is unset unless `env` sets it.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CommandResult> {
  const child = spawn(command, args, {
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

/**
 * Runs the built `tuttid` bin with `args` (an operator command: `status`, `dashboard`) to
 * its end, as a person types it; `TUTTI_HOME` is unset unless `env` sets it.
 */
export function runTuttidCommand(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CommandResult> {
  return runCommand(process.execPath, [BIN, ...args], env);
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
