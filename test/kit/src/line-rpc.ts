/**
 * A host's own JSON-RPC client for an agent it spawns itself (newline-delimited, over the
 * agent's stdio), for host-driven tests: requests by id, notifications ignored, and the
 * agent's whole process group stopped on close.
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
  close(): Promise<void>;
}

/** Spawns `command` in its own group and speaks JSON-RPC lines (with `jsonrpc` when `jsonrpc`). */
export function spawnLineRpc(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; jsonrpc: boolean },
): LineRpc {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  child.on('error', () => {});
  child.stdin!.on('error', () => {});
  child.stderr!.resume();
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: { id?: number; result?: unknown; error?: { message: string }; method?: string };
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.id === undefined || message.method !== undefined) return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiter?.reject(new Error(message.error.message));
    else waiter?.resolve(message.result);
  });
  const send = (message: object) =>
    child.stdin!.write(
      `${JSON.stringify(options.jsonrpc ? { jsonrpc: '2.0', ...message } : message)}\n`,
    );
  return {
    child,
    request<T>(method: string, params: unknown, timeoutMs = WAIT_BOUND_MS) {
      const id = ++next;
      return new Promise<T>((resolve, reject) => {
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
    async close() {
      if (child.pid === undefined || !isProcessGroupAlive(child.pid)) return;
      signalGroup(child.pid, 'SIGTERM');
      if (!(await waitForGroupExit(child.pid, 3_000))) signalGroup(child.pid, 'SIGKILL');
      await waitForGroupExit(child.pid, 3_000);
    },
  };
}
