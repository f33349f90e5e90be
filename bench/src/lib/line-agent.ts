/**
 * An agent driven directly by a bench over newline-delimited JSON-RPC on its stdio (ACP,
 * app-server), in its own process group: requests resolve with their answers, every line
 * the agent writes goes to `onLine` with the monotonic time (ns) it was read, and the
 * agent's own requests get an empty answer (none comes in the benched turns).
 */
import { createInterface } from 'node:readline';
import { spawnGroup } from './processes.js';

/** One agent on JSON-RPC lines. */
export interface LineAgent {
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
  notify(method: string, params: Record<string, unknown>): void;
  /** Called with each line the agent wrote, parsed, and the time it was read. */
  onLine(listener: ((message: JsonRpcLine, line: string, at: bigint) => void) | undefined): void;
  stderrTail(): string;
  stop(): Promise<void>;
}

/** A parsed line. */
export interface JsonRpcLine {
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** Starts `command args` with exactly `env`; `jsonrpc` adds the `jsonrpc: "2.0"` field. */
export function lineAgent(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
  jsonrpc: boolean,
): LineAgent {
  const group = spawnGroup(command, args, { env, cwd, stdin: 'pipe', wholeEnv: true });
  const { child } = group;
  const pending = new Map<number | string, (message: JsonRpcLine) => void>();
  let listener: ((message: JsonRpcLine, line: string, at: bigint) => void) | undefined;
  let next = 0;
  if (!child.stdin || !child.stdout) throw new Error(`${command} has no stdio pipes`);
  const stdin = child.stdin;
  stdin.on('error', () => {});
  const write = (message: Record<string, unknown>) =>
    stdin.write(`${JSON.stringify({ ...(jsonrpc ? { jsonrpc: '2.0' } : {}), ...message })}\n`);
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message: JsonRpcLine;
    try {
      message = JSON.parse(line) as JsonRpcLine;
    } catch {
      return;
    }
    const at = process.hrtime.bigint();
    listener?.(message, line, at);
    if (message.id !== undefined && message.method === undefined) {
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    } else if (message.id !== undefined) {
      write({ id: message.id, result: {} });
    }
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`${command} exited (${signal ?? code}): ${group.stderrTail()}`)),
    ),
  );
  exited.catch(() => {});
  return {
    request(method, params) {
      const id = ++next;
      const answer = new Promise<unknown>((resolve, reject) =>
        pending.set(id, (message) =>
          message.error
            ? reject(new Error(`${method}: ${JSON.stringify(message.error)}`))
            : resolve(message.result),
        ),
      );
      write({ id, method, params });
      return Promise.race([answer, exited]);
    },
    notify: (method, params) => write({ method, params }),
    onLine(next) {
      listener = next;
    },
    stderrTail: () => group.stderrTail(),
    stop: () => group.stop(),
  };
}
