/**
 * A host's own JSON-RPC client for an agent it spawns itself (newline-delimited, over the
 * agent's stdio), for host-driven tests and the agent benches: requests by id,
 * notifications ignored (or seen by `onLine`), and the agent's whole process group stopped
 * on close. A request still open when the agent's stdio closes fails with its stderr tail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { isProcessGroupAlive, signalGroup, waitForGroupExit } from '@tutti/core/internal';
import { WAIT_BOUND_MS } from './waits.js';

/** A spawned agent and its client. */
export interface LineRpc {
  readonly child: ChildProcess;
  request<T>(method: string, params: unknown, timeoutMs?: number): Promise<T>;
  notify(method: string, params: unknown): void;
  /** The last 4,000 characters the agent wrote to stderr. */
  stderrTail(): string;
  close(): Promise<void>;
}

/** One line the agent wrote, parsed. */
export interface LineMessage {
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: unknown;
  readonly error?: { readonly message?: string };
}

/** How {@link spawnLineRpc} starts and speaks to the agent. */
export interface LineRpcOptions {
  readonly cwd: string;
  /** The agent's whole environment. */
  readonly env: Record<string, string>;
  /** Send the `jsonrpc: "2.0"` field (ACP) or not (Codex app-server). */
  readonly jsonrpc: boolean;
  /** Called with every line the agent writes, parsed, and the monotonic time (ns) it was read. */
  readonly onLine?: (message: LineMessage, line: string, at: bigint) => void;
  /** Answer the agent's own requests with an empty result (default: leave them unanswered). */
  readonly answerRequests?: boolean;
}

/** Spawns `command` in its own group and speaks JSON-RPC lines (with `jsonrpc` when `jsonrpc`). */
export function spawnLineRpc(
  command: string,
  args: readonly string[],
  options: LineRpcOptions,
): LineRpc {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  child.on('error', () => {});
  child.stdin!.on('error', () => {});
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  const send = (message: object) =>
    child.stdin!.write(
      `${JSON.stringify(options.jsonrpc ? { jsonrpc: '2.0', ...message } : message)}\n`,
    );
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: LineMessage;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    options.onLine?.(message, line, process.hrtime.bigint());
    if (message.id === undefined) return;
    if (message.method !== undefined) {
      if (options.answerRequests) send({ id: message.id, result: {} });
      return;
    }
    const waiter = pending.get(message.id as number);
    pending.delete(message.id as number);
    if (message.error) waiter?.reject(new Error(message.error.message));
    else waiter?.resolve(message.result);
  });
  let closed: Error | undefined;
  child.once('close', (code, signal) => {
    closed = new Error(`${command} exited (${signal ?? code}): ${stderr}`);
    for (const waiter of pending.values()) waiter.reject(closed);
    pending.clear();
  });
  return {
    child,
    request<T>(method: string, params: unknown, timeoutMs = WAIT_BOUND_MS) {
      const id = ++next;
      return new Promise<T>((resolve, reject) => {
        if (closed) {
          reject(closed);
          return;
        }
        const timer = setTimeout(() => reject(new Error(`${method}: no answer`)), timeoutMs);
        pending.set(id, {
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value as T);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        send({ id, method, params });
      });
    },
    notify: (method, params) => send({ method, params }),
    stderrTail: () => stderr,
    async close() {
      if (child.pid === undefined || !isProcessGroupAlive(child.pid)) return;
      signalGroup(child.pid, 'SIGTERM');
      if (!(await waitForGroupExit(child.pid, 3_000))) signalGroup(child.pid, 'SIGKILL');
      await waitForGroupExit(child.pid, 3_000);
    },
  };
}
