/**
 * Runs an install tool (npm, uv) in its own process group with a time limit; on timeout the
 * whole group is killed. Answers the exit and the last lines of its output with anything
 * that looks like a credential masked, so a failure can be shown without leaking a token.
 */
import { spawn } from 'node:child_process';
import { signalGroup } from '../process/process-group.js';

/** How an install tool ended. */
export interface ToolResult {
  /** Exit code; null when killed, or when it could not start (`startError`). */
  readonly code: number | null;
  readonly timedOut: boolean;
  /** The spawn error code (ENOENT...), when it did not start. */
  readonly startError?: string;
  /** The last lines of stderr (else stdout), credentials masked. */
  readonly tail: string;
}

const TAIL_BYTES = 16 * 1024;
const TAIL_LINES = 12;

/** Masks token-like values: npm auth settings, bearer tokens, URL credentials. */
export function maskCredentials(text: string): string {
  return text
    .replace(
      /((?:_authToken|_auth|_password|[A-Za-z0-9_]*auth[A-Za-z0-9_]*)\s*[=:]\s*)\S+/gi,
      '$1***',
    )
    .replace(/(bearer\s+)\S+/gi, '$1***')
    .replace(/(\/\/)[^/\s:@]+:[^/\s@]+@/g, '$1***@');
}

function lastLines(text: string): string {
  return maskCredentials(
    text
      .split('\n')
      .map((line) => line.trimEnd())
      .filter((line) => line !== '')
      .slice(-TAIL_LINES)
      .join('\n'),
  );
}

/** Runs `command args` in `cwd` with `env`; killed (with its group) after `timeoutMs`. */
export function runTool(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ToolResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const keep = (held: string, chunk: Buffer) =>
      (held + chunk.toString('utf8')).slice(-TAIL_BYTES);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout = keep(stdout, chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = keep(stderr, chunk);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined && !signalGroup(child.pid, 'SIGKILL')) child.kill('SIGKILL');
    }, options.timeoutMs);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ code: null, timedOut, startError: error.code ?? error.message, tail: '' });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      // Leave no helper of the tool behind (npm may start one).
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      resolve({ code, timedOut, tail: lastLines(stderr.trim() !== '' ? stderr : stdout) });
    });
  });
}
