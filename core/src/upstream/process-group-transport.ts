/**
 * MCP stdio client transport over a supervised process group.
 *
 * The SDK's `StdioClientTransport` is not used because it spawns without `detached`
 * (the server shares the daemon's process group), merges a default environment into the
 * one given, and on close signals only the direct child, so grandchildren survive.
 *
 * Each line is handed to `intercept` first (raw `tools/call` answers, see raw-tool-calls.ts);
 * the lines it does not take reach `onmessage` once they are JSON-RPC 2.0 envelopes. The
 * full check is the SDK's own: its protocol classifies every message with the JSON-RPC
 * schemas (an unknown shape is an error) and validates each result against its request's
 * schema. Parsing with `JSONRPCMessageSchema` here as well was a third pass over every
 * message (cheap once warm, about 0.03 ms for a 50-tool list, but a pass for nothing).
 */
import {
  type JSONRPCMessage,
  SdkError,
  SdkErrorCode,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import type {
  ProcessExitInfo,
  ProcessSupervisor,
  SpawnGroupOptions,
  SupervisedProcess,
} from '../process/index.js';
import { createJsonLineReader, LineTooLongError } from './json-line-reader.js';

/** True for a JSON-RPC 2.0 request, notification or response envelope (not its contents). */
function isEnvelope(value: unknown): value is JSONRPCMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return false;
  if ('method' in message) return typeof message.method === 'string';
  return 'id' in message && ('result' in message || 'error' in message);
}

/** A Transport whose `start()` spawns the server as the leader of its own group. */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Sees every parsed line before validation; returning true consumes it. */
  intercept?: (message: unknown) => boolean;

  readonly #supervisor: ProcessSupervisor;
  readonly #spec: SpawnGroupOptions;
  readonly #readBuffer = createJsonLineReader();
  #process: SupervisedProcess | undefined;
  #exitInfo: ProcessExitInfo | undefined;
  #failure: LineTooLongError | undefined;
  #closedFired = false;

  readonly #onGone: (() => void) | undefined;

  /** `onGone` is called once the process ended, or its spawn failed. */
  constructor(supervisor: ProcessSupervisor, spec: SpawnGroupOptions, onGone?: () => void) {
    this.#supervisor = supervisor;
    this.#spec = spec;
    this.#onGone = onGone;
  }

  /** The running process, once started. */
  get process(): SupervisedProcess | undefined {
    return this.#process;
  }

  /** How the process ended, once it did. */
  get exitInfo(): ProcessExitInfo | undefined {
    return this.#exitInfo;
  }

  /**
   * Why the transport stopped the process itself (a line over the bound), once it did: the
   * cause of the exit that follows, which reads only as the SIGTERM it was sent.
   */
  get failure(): LineTooLongError | undefined {
    return this.#failure;
  }

  async start(): Promise<void> {
    if (this.#process) throw new Error('ProcessGroupTransport already started');
    const proc = await this.#supervisor.spawn(this.#spec).catch((error: unknown) => {
      this.#onGone?.();
      throw error;
    });
    this.#process = proc;
    proc.stdout.on('data', (chunk: Buffer) => {
      try {
        this.#readBuffer.append(chunk);
      } catch (error) {
        // One message over the line bound (10 MiB): the stream cannot be trusted any more.
        if (error instanceof LineTooLongError) this.#failure ??= error;
        this.onerror?.(error as Error);
        void this.close();
        return;
      }
      for (let line = this.#readBuffer.next(); line; line = this.#readBuffer.next()) {
        if (this.intercept?.(line.value)) continue;
        if (!isEnvelope(line.value)) {
          // Its content is not repeated: an upstream's output may hold its credentials.
          this.onerror?.(new Error('the upstream wrote a line that is not a JSON-RPC 2.0 message'));
          continue;
        }
        this.onmessage?.(line.value);
      }
    });
    proc.stdout.on('error', (error) => this.onerror?.(error));
    void proc.exited.then((info) => {
      this.#exitInfo = info;
      this.#fireClose();
      this.#onGone?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.stdin;
    if (!stdin || stdin.destroyed || this.#exitInfo) {
      throw new SdkError(SdkErrorCode.NotConnected, 'Not connected');
    }
    // The messages of one event-loop turn leave in one write: with calls in flight the
    // upstream wakes once per batch instead of once per line (see docs/benchmarks.md).
    if (!stdin.writableCorked) {
      stdin.cork();
      setImmediate(() => stdin.uncork());
    }
    await new Promise<void>((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Stops the whole process group (SIGTERM, then SIGKILL) and resolves when it is gone. */
  async close(): Promise<void> {
    const proc = this.#process;
    if (proc) {
      proc.stdin.end();
      await proc.terminate();
      this.#exitInfo ??= await proc.exited;
    }
    this.#readBuffer.clear();
    this.#fireClose();
  }

  #fireClose(): void {
    if (this.#closedFired) return;
    this.#closedFired = true;
    this.onclose?.();
  }
}
