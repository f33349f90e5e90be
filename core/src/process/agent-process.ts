/**
 * The one function that starts an agent process, for every provider: the leader of its own
 * process group (registered with the daemon's reaper through the supervisor), stdio piped,
 * a listener on every stream and on the child so that no pipe error (EPIPE, ECONNRESET)
 * can ever escape, a bounded stderr tail with known secrets redacted, and one exit record
 * that says how it ended. Spawning is synchronous (an SDK's spawn callback must return at
 * once); a start failure arrives through `started`.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { TuttiError } from '../errors/index.js';
import { lastLines, type SecretRedactor } from './secret-redactor.js';
import { spawnDetached } from './spawn-detached.js';
import { createStderrTail } from './stderr-tail.js';
import type { ProcessSupervisor } from './supervisor.js';

/** Default stderr bytes kept per agent. */
const AGENT_STDERR_TAIL_BYTES = 16 * 1024;
/** Default grace between SIGTERM and SIGKILL of an agent's group. */
const AGENT_GRACE_MS = 3_000;
/** Stderr lines an exit record carries. */
const EXIT_STDERR_LINES = 20;
/**
 * Longest wait for the exit record once the group was stopped. It comes at once unless the
 * leader outlived SIGKILL (stuck in the kernel), and a stop must not wait on that forever.
 */
const EXIT_RECORD_WAIT_MS = 2_000;

/** What to start. `env` is the agent's whole environment. */
export interface AgentSpawnSpec {
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborting kills the leader (an SDK's own cancellation). */
  readonly signal?: AbortSignal;
}

/** Who starts it and how it is watched. */
export interface AgentSpawnOptions {
  /** Provider name, for errors. */
  readonly provider: string;
  /** The daemon's supervisor, so the group dies with the daemon however it ends. */
  readonly processes?: ProcessSupervisor | undefined;
  /** Masks known secrets in the stderr lines this process reports. */
  readonly redactor?: SecretRedactor | undefined;
  readonly graceMs?: number;
}

/** How an agent process ended. Holds no secret (stderr is redacted). */
export interface AgentExit {
  /** Exit code, or null when a signal ended it or it never started. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** e.g. `exit code 127`, `signal SIGKILL`, `could not start: spawn x ENOENT`. */
  readonly description: string;
  /** Its last stderr lines, redacted, bounded. */
  readonly stderr: readonly string[];
  /** True when the daemon stopped it (close, reconnect, fault). */
  readonly expected: boolean;
}

/** A running (or ended) agent process. */
export interface AgentProcess {
  readonly provider: string;
  readonly command: string;
  /** Pid of the leader (also the process-group id); 0 when it never started. */
  readonly pid: number;
  /** The raw child, for SDKs that want a `ChildProcess`. */
  readonly child: ChildProcess;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves once it runs; rejects with TUTTI_ERR_PROVIDER_SPAWN_FAILED. */
  readonly started: Promise<void>;
  /** Resolves once it ended (never rejects). */
  readonly exited: Promise<AgentExit>;
  /** The exit record once it ended. */
  readonly exit: AgentExit | undefined;
  /** The last stderr lines so far, redacted. */
  stderrLines(max?: number): string[];
  /** Writes to stdin unless it is closed; never throws. False when the write was dropped. */
  write(data: string): boolean;
  /**
   * Stops the whole group (SIGTERM, grace, SIGKILL); resolves once it is gone and its exit
   * is recorded (at most 2 s more for a leader that outlived SIGKILL). Idempotent.
   */
  terminate(): Promise<void>;
  /**
   * Stops the whole group because the agent misbehaved: its exit is recorded as its own end
   * (not expected), described as `stopped because it <what>`. A no-op once it has exited.
   */
  fail(what: string): Promise<void>;
}

/**
 * Starts `spec.command` as an agent process.
 * @example const agent = spawnAgent({ command, args, cwd, env }, { provider: 'codex', processes });
 */
export function spawnAgent(spec: AgentSpawnSpec, options: AgentSpawnOptions): AgentProcess {
  const detached = spawnDetached({
    command: spec.command,
    args: spec.args ?? [],
    cwd: spec.cwd,
    env: spec.env,
    graceMs: options.graceMs ?? AGENT_GRACE_MS,
    ...(spec.signal ? { signal: spec.signal } : {}),
    ...(options.processes ? { processes: options.processes } : {}),
  });
  const { child } = detached;
  const tail = createStderrTail(AGENT_STDERR_TAIL_BYTES);
  const redact = (text: string) => options.redactor?.redact(text) ?? text;
  const stderrLines = (max = EXIT_STDERR_LINES) => lastLines(redact(tail.text()), max);
  let stopping = false;
  let failure: string | undefined;
  let startError: Error | undefined;
  let exit: AgentExit | undefined;

  // Every stream and the child get a listener: a late EPIPE or a failed kill is recorded by
  // the exit, never an unhandled 'error' event that would take the daemon down.
  child.on('error', (error) => {
    startError ??= error;
  });
  child.stdin?.on('error', () => {});
  child.stdout?.on('error', () => {});
  child.stderr?.on('error', () => {});
  child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));

  const started = new Promise<void>((resolve, reject) => {
    if (child.pid !== undefined) {
      child.once('spawn', resolve);
    }
    child.once('error', (error) => {
      reject(
        new TuttiError(
          'TUTTI_ERR_PROVIDER_SPAWN_FAILED',
          { provider: options.provider, command: spec.command, reason: error.message },
          { cause: error },
        ),
      );
    });
  });
  started.catch(() => {});

  const exited = new Promise<AgentExit>((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (exit) return;
      const description =
        child.pid === undefined || (code === null && signal === null && startError)
          ? `could not start: ${startError?.message ?? 'unknown error'}`
          : failure
            ? `stopped because it ${failure}`
            : signal
              ? `signal ${signal}`
              : `exit code ${code}`;
      exit = Object.freeze({
        code,
        signal,
        description,
        stderr: Object.freeze(stderrLines()),
        expected: stopping && failure === undefined,
      });
      resolve(exit);
    };
    if (child.pid === undefined) {
      child.once('error', () => finish(null, null));
      return;
    }
    // 'close' comes after stdio drained, so the stderr tail is complete; an orphan holding
    // the pipes open must not delay the record for long.
    let leader: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    child.once('exit', (code, signal) => {
      leader = { code, signal };
      setTimeout(() => finish(code, signal), 1_000).unref();
    });
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) =>
      finish(leader?.code ?? code, leader?.signal ?? signal),
    );
  });

  /** Resolves once the exit is recorded, or after EXIT_RECORD_WAIT_MS. */
  const recorded = async () => {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, EXIT_RECORD_WAIT_MS);
    });
    await Promise.race([exited, waited]);
    clearTimeout(timer);
  };

  return {
    provider: options.provider,
    command: spec.command,
    pid: child.pid ?? 0,
    child,
    stdin: child.stdin!,
    stdout: child.stdout!,
    started,
    exited,
    get exit() {
      return exit;
    },
    stderrLines,
    write(data) {
      const stdin = child.stdin;
      if (exit || !stdin || stdin.destroyed || !stdin.writable) return false;
      stdin.write(data);
      return true;
    },
    async terminate() {
      stopping = true;
      await detached.terminate();
      await recorded();
    },
    async fail(what) {
      // An agent that already ended on its own keeps that end as its reason.
      if (!exit && !stopping && child.exitCode === null && child.signalCode === null) {
        failure ??= what;
      }
      await detached.terminate();
      await recorded();
    },
  };
}
