/**
 * Test harness for a real `tuttid` process (run from sources): start it on a home, wait for
 * its ready line, call its control API, and stop or kill it. Every process it starts is
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

/** A running daemon process. */
export interface TuttidProcess {
  readonly child: ChildProcess;
  readonly ready: ReadyLine;
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

/** Starts `tuttid --json` on `home` with extra args; rejects if it exits before ready. */
export async function startTuttid(home: string, args: string[] = []): Promise<TuttidProcess> {
  const child = spawn(
    process.execPath,
    ['-C', 'tutti-source', '--import', LOADER, ENTRY, '--home', home, '--json', ...args],
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
  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      out += `${line}\n`;
      if (line.startsWith('{"event":"ready"')) resolve(JSON.parse(line) as ReadyLine);
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`tuttid exited (${code ?? signal}) before ready:\n${err}`)),
    );
  });
  const info = JSON.parse(await readFile(join(home, 'run', 'daemon.json'), 'utf8')) as {
    controlToken: string;
  };
  return {
    child,
    ready,
    controlToken: info.controlToken,
    stderr: () => err,
    stdout: () => out,
    exited,
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
